# boards before Ampere retire pages instead: [N/A]
scenario: inference-leak.ini
args: --query-remapped-rows=gpu_name,remapped_rows.failure,remapped_rows.pending --format=csv,noheader
exit: 0
--- stdout
Tesla V100-SXM2-32GB, [N/A], [N/A]
Tesla V100-SXM2-32GB, [N/A], [N/A]
--- stderr
