#!/bin/sh
# The official image compiles protected mode off; Debian's build has it on, which would refuse the
# other containers when no password is set.
exec /usr/bin/redis-server "$@" --protected-mode no
