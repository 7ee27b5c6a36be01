import CMalloc

/// Gives memory the program has freed back to the operating system.
///
/// glibc keeps freed memory in its arenas for reuse: once a burst's unmerged fixes and merge
/// batches are freed, that is hundreds of MiB the process would otherwise hold for good (RSS
/// never comes down). `malloc_trim(0)` returns every whole free page of every arena. It takes
/// milliseconds and locks each arena while it walks it: call it when a backlog has been worked
/// off, never on a request's path.
public enum FreeMemory {
    public static func returnToSystem() {
        _ = malloc_trim(0)
    }
}
