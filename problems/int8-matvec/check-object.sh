# check-object.sh OBJ: the method's object may hold its kernel and
# nothing else that the sealed driver would run: an ELF relocatable
# object (not a linker script or an archive), whose global symbols are
# matvec and matvec_* only (no main, no libc function replaced), with no
# code run before or after main (.init_array, .ctors and the like).
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
    grep -v -E '^matvec(_[A-Za-z0-9_]*)?$' | tr '\n' ' ')
[ -z "$bad" ] || fail "defines ${bad% }: only matvec and matvec_* may be global"
sec=$(readelf -S -W "$obj" |
    grep -o -E '\.(preinit_array|init_array|fini_array|ctors|dtors|init|fini)([.][0-9]+)?[[:space:]]' |
    tr -d ' ' | sort -u | tr '\n' ' ')
[ -z "$sec" ] || fail "has ${sec% }: no code may run before or after main"
exit 0
