# names from the GPU are hostile: control characters and bad UTF-8 are replaced
scenario: hostile-names.ini
args: -L
exit: 0
--- stdout
GPU 0: =HYPERLINK("http://example.invalid/","x"),��]0;pwned��2J� (UUID: GPU-b862ac26-2775-fcbd-e7c3-e3c19001194a)
GPU 1: NVIDIA L40S 训练 "lab", 2 (UUID: GPU-b9bfcfcd-44c7-5588-5203-4cd78c658552)
--- stderr
