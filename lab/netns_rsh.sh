#!/bin/sh
# Open MPI's remote shell for lab nodes (--mca plm_rsh_agent lab/netns_rsh.sh): instead of ssh-ing to HOST it
# runs the daemon command inside HOST's network namespace, under HOST's hostname. $LAB_NS_MAP is a file of
# "<namespace> <hostname>" lines written by lab/tools.py.
host="$1"; shift
ns=$(awk -v h="$host" '$2==h {print $1}' "$LAB_NS_MAP")
[ -n "$ns" ] || { echo "netns_rsh: no lab node named $host" >&2; exit 255; }
exec ip netns exec "$ns" unshare --uts -- sh -c 'hostname "$0"; exec sh -c "$1"' "$host" "$*"
