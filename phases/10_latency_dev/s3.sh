#!/usr/bin/env bash
B=.dev/b
nvidia-smi -L
for sh in "1 8 512 512 64 0" "1 8 512 512 64 1" "1 8 512 512 128 0" "2 8 77 77 64 0" "1 8 256 256 64 0"; do
  for r in 1 2; do for n in O10 X1 X2 X3 X4 X5 T1; do $B/abitime $B/phases/$n.so $sh 300; done; done
done
