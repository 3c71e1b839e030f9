# plant_entries.awk: check-planted's choice of the kernels ptxas assembles in a planted
# copy's PTX (the Makefile's $(BUILD)/testing/planted_check/%.o rule).
#
#   awk -f ci/checks/plant_entries.awk FILE.ptx
#
# Prints `-Xptxas -e=NAME` for every .entry whose body reads attn_plant_cycles_ (the delay
# the hook of harness/planted/plant_hook.cuh loads: the kernels the transform hooked), so
# that ptxas assembles those and not the untransformed kernels a rung includes from the
# rungs below (their PTX is the plain build's, which `make build` assembled). Prints
# `none` when no entry reads it (a unit whose kernels are all the rungs' below, as rung
# 11's rung10.cu), and `all` when a .func reads it (a hooked kernel could then read it
# through a call this does not follow): ptxas then assembles every entry, as before.
# A line belongs to the function whose header and opening `{` (at column 0) came last: a
# body's end is not looked for, as inline asm closes its own blocks at column 0 too; a
# declaration after a body counts toward it, which can only add an entry (a .func
# prototype, ending in `;`, opens no body: the next header replaces it).
/^[ \t]*(\.visible[ \t]+|\.weak[ \t]+)?\.entry[ \t]/ {
    name = $0
    sub(/^.*\.entry[ \t]+/, "", name)
    sub(/[ \t]*\(.*$/, "", name)
    next_name = name; next_kind = "entry"
    next
}
/^[ \t]*(\.visible[ \t]+|\.weak[ \t]+|\.extern[ \t]+)?\.func[ \t]/ { next_name = ""; next_kind = "func"; next }
/^{/ && next_kind != "" { cur = next_name; kind = next_kind; next_kind = ""; next }
/attn_plant_cycles_/ {
    if (kind == "func") in_func = 1
    else if (kind == "entry" && !(cur in hooked)) { hooked[cur] = 1; order[n++] = cur }
}
END {
    if (in_func) { print "all"; exit 0 }
    if (n == 0) { print "none"; exit 0 }
    for (i = 0; i < n; i++) printf "%s-Xptxas -e=%s", (i ? " " : ""), order[i]
    print ""
}
