/* seccomp.c: the filter of seccomp.h, a classic BPF program written by
 * hand: the architecture, then one comparison per refused call. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "seccomp.h"

#if defined(__x86_64__)
#define AR_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define AR_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#define CALL(name) { #name, __NR_##name }
struct call {
	const char *name;
	long nr;
};

/* Refused with EPERM. */
static const struct call deny[] = {
	/* Other processes: their memory, descriptors and state. */
	CALL(ptrace), CALL(process_vm_readv), CALL(process_vm_writev),
	CALL(kcmp),
#ifdef __NR_pidfd_getfd
	CALL(pidfd_getfd),
#endif
	/* Kernel state outside the files of a run. */
	CALL(keyctl), CALL(add_key), CALL(request_key),
	CALL(msgget), CALL(semget), CALL(shmget), CALL(mq_open),
	CALL(bpf), CALL(userfaultfd), CALL(perf_event_open),
	CALL(fanotify_init),
#ifdef __NR_io_uring_setup
	CALL(io_uring_setup), CALL(io_uring_enter), CALL(io_uring_register),
#endif
	/* The sandbox itself. */
	CALL(unshare), CALL(setns), CALL(mount), CALL(umount2),
	CALL(pivot_root), CALL(chroot),
#ifdef __NR_open_tree
	CALL(open_tree), CALL(move_mount), CALL(fsopen), CALL(fsconfig),
	CALL(fsmount), CALL(fspick),
#endif
#ifdef __NR_mount_setattr
	CALL(mount_setattr),
#endif
	CALL(open_by_handle_at), CALL(name_to_handle_at),
	/* The machine. */
	CALL(kexec_load), CALL(init_module), CALL(finit_module),
	CALL(delete_module), CALL(reboot), CALL(swapon), CALL(swapoff),
	CALL(syslog), CALL(acct), CALL(settimeofday), CALL(clock_settime),
	CALL(clock_adjtime), CALL(adjtimex), CALL(quotactl), CALL(vhangup),
#ifdef __NR_kexec_file_load
	CALL(kexec_file_load),
#endif
#ifdef __NR_iopl
	CALL(iopl), CALL(ioperm),
#endif
};

#define NDENY (sizeof deny / sizeof *deny)
#define NSFLAGS (CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | \
	CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP)

const char *
ar_seccomp_refused(size_t i)
{
	static const char *const more[] = {
	    "sched_setaffinity (succeeds, changes nothing)", "clone3 (ENOSYS)",
	    "clone with CLONE_NEW* flags" };

	if (i < NDENY)
		return deny[i].name;
	i -= NDENY;
	return i < sizeof more / sizeof *more ? more[i] : NULL;
}

int
ar_seccomp_install(void)
{
#ifndef AR_AUDIT_ARCH
	errno = ENOSYS;
	return -1;
#else
	/* Arch check (3), x32 check (1, x86-64 only), the denied calls,
	 * sched_setaffinity (2), clone3 (2), clone (4), allow, EPERM,
	 * kill. */
	struct sock_filter f[3 + 1 + NDENY + 2 + 2 + 4 + 3];
	struct sock_fprog prog;
	size_t n = 0, i, eperm, kill, allow;

	/* The returns sit at the end; every jump is counted to them. */
	allow = sizeof f / sizeof *f - 3;
	eperm = allow + 1;
	kill = allow + 2;
#define AT(k) ((unsigned char)((k) - n - 1))
	f[n] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, arch));
	n++;
	f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	    AR_AUDIT_ARCH, 0, AT(kill));
	n++;
	f[n] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, nr));
	n++;
#ifdef __x86_64__
	f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K,
	    0x40000000, AT(kill), 0);
#else
	f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0);
#endif
	n++;
	for (i = 0; i < NDENY; i++, n++)
		f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		    (unsigned)deny[i].nr, AT(eperm), 0);
	/* The CPUs a run was pinned to are its bundle: a call to change
	 * them returns 0 and changes nothing, so a run cannot leave them,
	 * and a library that pins its threads (NCCL, OpenMP) still starts,
	 * where EPERM would fail it. */
	f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	    __NR_sched_setaffinity, 0, 1);
	n++;
	f[n] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ERRNO | 0);
	n++;
#ifdef __NR_clone3
	f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	    __NR_clone3, 0, 1);
#else
	f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 1, 0, 0);
#endif
	n++;
	f[n] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ERRNO | ENOSYS);
	n++;
	/* clone's flags are its first argument on both architectures. */
	f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	    __NR_clone, 0, AT(allow));
	n++;
	f[n] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, args[0]));
	n++;
	f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
	    NSFLAGS, AT(eperm), 0);
	n++;
	f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0);
	n++;
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ERRNO | EPERM);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_KILL_PROCESS);
#undef AT
	prog.len = (unsigned short)n;
	prog.filter = f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
#endif
}
