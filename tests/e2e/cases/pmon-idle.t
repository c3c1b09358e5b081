# before the compute job starts: only graphics processes; -s m
scenario: workstation.ini
time: 10
args: pmon -s m -c 2 -d 0.05 -i 0
--- stdout
# gpu         pid   type     fb   ccpm    command 
# Idx           #    C/G     MB     MB    name 
    0    4194416     G    412      -    Xorg           
    0    4194417     G    187      -    gnome-shell    
    0    4194418     G    356      -    firefox        
    0    4194416     G    412      -    Xorg           
    0    4194417     G    187      -    gnome-shell    
    0    4194418     G    356      -    firefox        
--- stderr
