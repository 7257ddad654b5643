#!/bin/bash
# One worker per host listed in hosts.txt (GNU parallel over ssh); each runs
# until the test has no work left. The remote hosts read the connection
# string from ~/.config/karsinta/database-url (chmod 600).
#   dist/examples/parallel-ssh.sh mytest hosts.txt
set -euo pipefail
test_name=$1 hosts=$2
parallel --sshloginfile "$hosts" --nonall --line-buffer \
    karsinta-dist worker --fleet --test "$test_name" \
    --database-file '~/.config/karsinta/database-url'
