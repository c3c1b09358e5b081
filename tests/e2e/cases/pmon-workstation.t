# graphics processes (G), no per-process utilisation on the 4090; a GPU without processes gets a '-' line
scenario: workstation.ini
time: 300
args: pmon -o T -c 1
--- stdout
#Time         gpu         pid   type     sm    mem    enc    dec    jpg    ofa    command 
#HH:MM:SS     Idx           #    C/G      %      %      %      %      %      %    name 
 {num}:{num}:{num}       0    4194419     C      -      -      -      -      -      -    python3        
 {num}:{num}:{num}       0    4194416     G      -      -      -      -      -      -    Xorg           
 {num}:{num}:{num}       0    4194417     G      -      -      -      -      -      -    gnome-shell    
 {num}:{num}:{num}       0    4194418     G      -      -      -      -      -      -    firefox        
 {num}:{num}:{num}       1          -     -      -      -      -      -      -      -    -              
--- stderr
