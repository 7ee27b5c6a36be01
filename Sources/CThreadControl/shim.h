#ifndef FOD_CTHREADCONTROL_SHIM_H
#define FOD_CTHREADCONTROL_SHIM_H
// The calling thread's name and scheduling (Linux): sched_setattr(2) has no glibc wrapper before
// 2.41 and Swift cannot call the variadic syscall(2) or prctl(2), so this header makes the calls.
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/prctl.h>

/// `struct sched_attr` as sched_setattr(2) documents it (size 56, SCHED_ATTR_SIZE_VER1).
struct fod_sched_attr {
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime;
    uint64_t sched_deadline;
    uint64_t sched_period;
    uint32_t sched_util_min;
    uint32_t sched_util_max;
};

/// Sets the calling thread's policy (SCHED_OTHER 0, SCHED_BATCH 3, SCHED_IDLE 5), nice value and,
/// for SCHED_OTHER on Linux 6.12 and later, its requested time slice (`slice_ns`; 0 keeps the
/// default; the kernel clamps it to 0.1–100 ms). Returns 0, or the errno of the failure.
static inline int fod_set_current_thread_scheduling(uint32_t policy, int32_t nice, uint64_t slice_ns) {
#ifdef SYS_sched_setattr
    struct fod_sched_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.sched_policy = policy;
    attr.sched_nice = nice;
    attr.sched_runtime = slice_ns;
    return syscall(SYS_sched_setattr, 0, &attr, 0) == 0 ? 0 : errno;
#else
    return ENOSYS;
#endif
}
/// Names the calling thread (PR_SET_NAME; Linux keeps the first 15 bytes). Returns 0 or errno.
static inline int fod_set_current_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0) == 0 ? 0 : errno;
}
#endif
