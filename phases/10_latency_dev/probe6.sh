#!/usr/bin/env bash
# ncu: each variant's kernel alone (no launch overlap): duration, cycles, issue, stalls
B=.dev/b; A=$B/attnladder
M=gpu__time_duration.sum,sm__cycles_active.max,smsp__inst_executed.sum,launch__registers_per_thread,launch__occupancy_limit_shared_mem,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio
for impl in L0 L1 F121 F122; do
 for sh in "2,8,77,64,0" "1,8,256,64,0" "1,8,1,300,64,0"; do
  timeout 100 ncu --metrics $M -k regex:latency_attention --launch-skip 3 --launch-count 1 --csv $A run --build $B --impl $impl --shape $sh --modes single --sweep-modes single --min-samples 3 --max-samples 4 --no-ceilings --out /tmp/n.json 2>/dev/null | grep -E '^"' | awk -v i=$impl -v s=$sh -F'","' '{print i, s, $(NF-2), $NF}' | grep -v "Metric Name" 
 done
done
