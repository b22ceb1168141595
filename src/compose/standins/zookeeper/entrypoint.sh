#!/bin/bash
# zoo.cfg and myid from the environment, as the official image's entrypoint writes them.
set -euo pipefail
if [ ! -f /conf/zoo.cfg ]; then
  {
    echo "dataDir=/data"
    echo "dataLogDir=/datalog"
    echo "tickTime=2000"
    echo "initLimit=5"
    echo "syncLimit=2"
    echo "maxClientCnxns=60"
    echo "standaloneEnabled=true"
    echo "admin.enableServer=false"
    echo "quorumListenOnAllIPs=true"
    echo "4lw.commands.whitelist=${ZOO_4LW_COMMANDS_WHITELIST:-srvr}"
    for server in ${ZOO_SERVERS:-server.1=localhost:2888:3888;2181}; do echo "$server"; done
  } > /conf/zoo.cfg
fi
[ -f /data/myid ] || echo "${ZOO_MY_ID:-1}" > /data/myid
exec "$@"
