#if canImport(Glibc)
import Glibc
import CThreadControl
#endif

/// How the operating system treats the calling thread: its name and its share of the CPU.
///
/// Every call is best effort: on a system without the feature it does nothing and says so, and
/// no caller depends on it for correctness, only for latency under load.
public enum CurrentThread {
    /// Names the calling thread as `top -H`, `perf` and `/proc/<pid>/task/*/comm` show it. Linux
    /// keeps 15 bytes of it.
    public static func name(_ name: String) {
        #if canImport(Glibc)
        _ = fod_set_current_thread_name(name)
        #endif
    }

    /// Asks for the scheduling of `role`. Returns whether the system accepted it.
    @discardableResult
    public static func schedule(as role: SchedulingRole) -> Bool {
        #if canImport(Glibc)
        fod_set_current_thread_scheduling(role.policy, role.nice, role.sliceNanoseconds) == 0
        #else
        false
        #endif
    }
}

/// What a thread does, as far as the CPU scheduler should care.
public enum SchedulingRole: Sendable {
    /// Answers requests one at a time, each in well under a millisecond (the HTTP threads):
    /// asks Linux (6.12 and later; older kernels refuse, and nothing changes) for 0.1 ms slices
    /// instead of the default (1.4 ms on this 2-core machine), so that a request thread woken
    /// on a CPU that a long-running thread holds (the writer's commits, a JSON parse) is more
    /// likely to run at once instead of after the other's slice. Its share of the CPU is
    /// unchanged.
    case requests

    /// `SCHED_OTHER`.
    var policy: UInt32 { 0 }

    var nice: Int32 { 0 }

    /// The requested slice (nanoseconds).
    var sliceNanoseconds: UInt64 {
        switch self {
        case .requests: 100_000
        }
    }
}
