#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# kill -9 of a local peer (issue 32): e2e_kill's cases between endpoints
# of one interface (server and clients in namespace A), which talk
# through their local channel; a dead local peer's operations fail as a
# remote one's do, and the survivor serves the next client. At the end,
# the survivors' counters show that the channel carried the traffic.
export E2E_NAME=e2e_kill_local KILL_SERVER_SIDE=A
exec bash "$(dirname "$0")/e2e_kill.sh"
