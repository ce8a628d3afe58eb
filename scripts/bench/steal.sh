# Sourced by the benchmark scripts. A virtual machine's figures hold only
# while the host gives it its cores: steal_begin notes the CPU time
# counters of /proc/stat, steal_report prints the share of CPU time since
# then that the host gave to others (the steal column) — about 0 on a
# quiet machine.

# _steal_counters prints the total CPU time and the steal time so far.
_steal_counters() {
	awk '/^cpu /{print $2+$3+$4+$5+$6+$7+$8+$9, $9}' /proc/stat
}

steal_begin() {
	_steal0="$(_steal_counters 2>/dev/null || true)"
}

steal_report() {
	[ -n "${_steal0:-}" ] || return 0
	echo "$_steal0 $(_steal_counters)" | awk '$3 > $1 {printf "steal: %.1f%% of CPU time during the run (about 0 on a quiet machine)\n", ($4-$2)*100/($3-$1)}'
}
