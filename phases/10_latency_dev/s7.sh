#!/usr/bin/env bash
B=.dev/b
nvidia-smi -L
for sh in "1 8 512 512 64 0" "1 8 512 512 64 1" "1 8 512 512 128 0"; do
  for r in 1 2 3; do $B/abitime $B/phases/TR.so $sh 300; done
  $B/abitime $B/phases/A1.so $sh 300; $B/abitime $B/phases/O10.so $sh 300
done
