#!/usr/bin/env bash
# Acceptance test of `npusim sweep --launcher slurm` against a real single-node Slurm.
# It installs Debian's slurmctld, slurmd and munge when they are missing (as root),
# starts munged, slurmctld and slurmd on this machine with a generated configuration in
# a private folder (its own ports, sockets and state), runs one sweep locally and the
# same sweep through Slurm, checks that both results.csv agree (wall_s aside), tests
# `--no-wait` plus `sweep collect`, and stops the daemons again, whatever happens.
#
# Exit codes: 0 passed, 1 failed (with the reason and the daemons' logs), 77 skipped
# because Slurm cannot be installed here (the reason is printed).
#   NPUSIM     the npusim binary (default build/npusim)
#   KEEP=1     keep the scratch folder for inspection
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
NPUSIM=${NPUSIM:-$ROOT/build/npusim}

say() { echo "slurm_test: $*"; }
skip() {
  say "SKIP: $*"
  exit 77
}

[[ -x "$NPUSIM" ]] || {
  say "FAIL: no npusim binary at $NPUSIM (build first)"
  exit 1
}

# --- 1. Packages -------------------------------------------------------------------
need=()
for tool in slurmctld slurmd munged sbatch squeue sinfo; do
  command -v "$tool" >/dev/null 2>&1 || need+=("$tool")
done
if ((${#need[@]})); then
  ((EUID == 0)) || skip "Slurm is not installed (${need[*]} missing) and installing it needs root"
  command -v apt-get >/dev/null 2>&1 || skip "Slurm is not installed and there is no apt-get"
  say "installing slurmctld slurmd munge slurm-client"
  log=$(mktemp)
  if ! timeout 600 env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 \
    install -y --no-install-recommends slurmctld slurmd munge slurm-client >"$log" 2>&1; then
    tail -5 "$log"
    rm -f "$log"
    skip "apt-get cannot install Slurm here (see above)"
  fi
  rm -f "$log"
fi

((EUID == 0)) || skip "slurmd must run as root to start jobs, and this is not root"

# --- 2. A private Slurm ------------------------------------------------------------
WORK=$(mktemp -d /tmp/npusim-slurm.XXXXXX)
chmod 700 "$WORK"
mkdir -p "$WORK/munge" "$WORK/state" "$WORK/spool" "$WORK/log"
chmod 755 "$WORK/munge"
PIDS=()

stop_daemons() {
  local pid
  for pid in "${PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
  done
  PIDS=()
}
cleanup() {
  local code=$?
  if [[ -n "${SLURM_CONF:-}" ]] && command -v scancel >/dev/null 2>&1; then
    timeout 10 scancel --user="$(id -un)" >/dev/null 2>&1 || true
  fi
  stop_daemons
  if [[ "${KEEP:-0}" == 1 ]]; then
    say "kept $WORK"
  else
    rm -rf "$WORK"
  fi
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
  say "FAIL: $*"
  for f in "$WORK"/log/*.log; do
    [[ -f "$f" ]] || continue
    echo "---- last lines of $(basename "$f")"
    tail -15 "$f"
  done
  exit 1
}

# Free TCP ports for slurmctld and slurmd (never the defaults: another Slurm may run).
read -r CTLD_PORT SLURMD_PORT < <(/usr/bin/python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')

HOST=$(hostname -s)
CPUS=$(nproc)
MEM_MB=$(awk '/^MemTotal:/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
USER_NAME=$(id -un)

mungekey -c -k "$WORK/munge/munge.key" >/dev/null 2>&1 ||
  dd if=/dev/urandom of="$WORK/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$WORK/munge/munge.key"
SOCKET="$WORK/munge/munge.socket"
munged --force --foreground --key-file="$WORK/munge/munge.key" --socket="$SOCKET" \
  --pid-file="$WORK/munge/munged.pid" --log-file="$WORK/log/munged.log" \
  --seed-file="$WORK/munge/munged.seed" >"$WORK/log/munged.stdout.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do
  [[ -S "$SOCKET" ]] && break
  sleep 0.1
done
timeout 10 munge -S "$SOCKET" -n | timeout 10 unmunge -S "$SOCKET" >/dev/null ||
  fail "munged does not answer on $SOCKET"

export SLURM_CONF="$WORK/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=npusim-test
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=$USER_NAME
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCKET
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SlurmdTimeout=60
MinJobAge=600
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=debug Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF

say "starting slurmctld (port $CTLD_PORT) and slurmd (port $SLURMD_PORT) on $HOST: $CPUS CPUs, $MEM_MB MB"
slurmctld -D -i -f "$SLURM_CONF" >"$WORK/log/slurmctld.stdout.log" 2>&1 &
PIDS+=($!)
slurmd -D -f "$SLURM_CONF" -N "$HOST" >"$WORK/log/slurmd.stdout.log" 2>&1 &
PIDS+=($!)

state=""
for _ in $(seq 60); do
  state=$(timeout 10 sinfo --noheader --nodes="$HOST" --format=%T 2>/dev/null || true)
  [[ "$state" == idle* ]] && break
  sleep 1
done
[[ "$state" == idle* ]] || fail "the node did not become idle within 60 s (state: '${state:-none}')"
say "node $HOST is idle"

# --- 3. The same sweep locally and through Slurm ------------------------------------
SWEEP="$WORK/sweep.yaml"
cat >"$SWEEP" <<EOF
name: slurm-check
config: $ROOT/configs/edge-npu.yaml
testbench: [$ROOT/testbenches/hello.yaml, $ROOT/testbenches/iload_dominates.yaml]
parameters:
  icache.size: [8KiB, 32KiB]
  compute.units: [1, 0, 4]
metrics: [sim.simulated_ns, sim.launches, host.busy_ns, blocks.icache.misses]
EOF

strip_wall() { sed 's/,[^,]*$//' "$1"; }

timeout 300 "$NPUSIM" sweep "$SWEEP" --out "$WORK/local" --jobs 2 >"$WORK/local.log" 2>&1 ||
  fail "the local sweep failed: $(tail -3 "$WORK/local.log")"
timeout 400 "$NPUSIM" sweep "$SWEEP" --out "$WORK/slurm" --launcher slurm --points-per-task 3 \
  --poll 1s --time-limit 10:00 --partition debug --sbatch-arg=--job-name=npusim-check \
  >"$WORK/slurm.log" 2>&1 || fail "the Slurm sweep failed: $(tail -3 "$WORK/slurm.log")"
cat "$WORK/slurm.log"

grep -q -- "--array=0-2" "$WORK/slurm/slurm/sweep.sbatch" ||
  fail "expected 3 array tasks (8 valid points, 3 per task) in sweep.sbatch"
ls "$WORK"/slurm/slurm/task-*.out >/dev/null 2>&1 || fail "no array task wrote its output"
grep -q "on $HOST" "$WORK"/slurm/slurm/task-0.out || fail "task 0 did not run on $HOST"
rows=$(($(wc -l <"$WORK/local/results.csv") - 1))
ok=$(grep -c ',ok,,' "$WORK/local/results.csv" || true)
((rows == 12 && ok == 8)) || fail "expected 12 rows, 8 ok, locally; got $rows rows, $ok ok"
if ! diff <(strip_wall "$WORK/local/results.csv") <(strip_wall "$WORK/slurm/results.csv"); then
  fail "results.csv differs between the local and the Slurm run"
fi
say "local and Slurm results.csv agree ($rows rows, wall_s aside)"

# --- 4. --no-wait, then collect ---------------------------------------------------
out=$(timeout 60 "$NPUSIM" sweep "$SWEEP" --out "$WORK/nowait" --launcher slurm --no-wait 2>&1) ||
  fail "sweep --no-wait failed: $out"
job=$(cat "$WORK/nowait/slurm/job_id")
for _ in $(seq 300); do
  [[ -z "$(timeout 10 squeue --noheader --jobs="$job" 2>/dev/null)" ]] && break
  sleep 1
done
[[ -z "$(timeout 10 squeue --noheader --jobs="$job" 2>/dev/null)" ]] ||
  fail "job $job still queued after 300 s"
timeout 60 "$NPUSIM" sweep collect "$WORK/nowait" >/dev/null || fail "sweep collect failed"
diff <(strip_wall "$WORK/local/results.csv") <(strip_wall "$WORK/nowait/results.csv") ||
  fail "results.csv of --no-wait + collect differs from the local run"
say "--no-wait + collect agree with the local run"
say "PASS"
