scenario: h100x8-training.ini
time: 300
spawn: 1
args: query --query-compute-apps=pid,user,host_state,type --format=csv --id 0,7
--- stdout
pid, user, host_state, type
{pid0}, {user}, alive, C
4194407, {user}, alive, C
4194304, [N/A], gone, C
--- stderr
