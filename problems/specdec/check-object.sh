# check-object.sh OBJ: the method's policy object may hold its policy and
# nothing else: an ELF relocatable object whose global symbols are
# policy_step and policy_* only (no main, no libc function replaced),
# with no code run before or after main, and which calls nothing but
# memory and math functions: no clock, no files, no threads, no
# syscalls. What the engine owns (the clock, the models, the cache) is
# reached only through sd.h.
obj=$1
fail() {
	echo "build: $obj: $*" >&2
	exit 1
}
[ -f "$obj" ] || fail "the method's Makefile made no such file"
[ "$(head -c 4 "$obj" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ] ||
	fail "not an ELF object"
readelf -h "$obj" 2>/dev/null | grep -q 'Type:[[:space:]]*REL ' ||
	fail "not a relocatable object"
bad=$(nm -g --defined-only "$obj" | awk '{ print $NF }' |
    grep -v -E '^policy_[A-Za-z0-9_]*$' | tr '\n' ' ')
[ -z "$bad" ] || fail "defines ${bad% }: only policy_* may be global"
nm -g --defined-only "$obj" | awk '{ print $NF }' | grep -q '^policy_step$' ||
	fail "defines no policy_step"
ok='^(mem(cpy|set|move|cmp)|qsort|abs|labs|(sqrt|exp|exp2|log|log2|pow|floor|ceil|fabs|fmin|fmax|round|lround)f?|__stack_chk_fail)$'
bad=$(nm -u "$obj" | awk '{ print $NF }' | grep -v -E "$ok" | tr '\n' ' ')
[ -z "$bad" ] || fail "calls ${bad% }: a policy may call only memory and math functions"
sec=$(readelf -S -W "$obj" |
    grep -o -E '\.(preinit_array|init_array|fini_array|ctors|dtors|init|fini)([.][0-9]+)?[[:space:]]' |
    tr -d ' ' | sort -u | tr '\n' ' ')
[ -z "$sec" ] || fail "has ${sec% }: no code may run before or after main"
exit 0
