import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// glibc malloc settings for a process that moves many large image buffers across many threads.
///
/// By default glibc gives every thread that allocates its own heap arena (up to 8 per core), and
/// after a large buffer is freed it raises its mmap threshold, so later image-sized buffers come
/// from those arenas and stay resident after use. Two arenas and a fixed 1 MiB threshold (large
/// buffers always mmapped, so returned to the system when freed) keep peak RSS close to what is
/// really in use. Measured in bench/RESULTS.md (runtime section). `MALLOC_ARENA_MAX` and
/// `MALLOC_MMAP_THRESHOLD_` in the environment still win.
public enum MemoryTuning {
    /// `environment`: the process's, which glibc read at start.
    public static func apply(environment: [String: String]) {
        #if canImport(Glibc)
            if environment["MALLOC_ARENA_MAX"] == nil { _ = glibcMallopt(mArenaMax, 2) }
            if environment["MALLOC_MMAP_THRESHOLD_"] == nil { _ = glibcMallopt(mMmapThreshold, 1 << 20) }
        #endif
    }

    // <malloc.h> is not part of Swift's Glibc module: its two constants and the function, as
    // glibc declares them.
    private static let mArenaMax: Int32 = -8
    private static let mMmapThreshold: Int32 = -3
}

#if canImport(Glibc)
    @_silgen_name("mallopt")
    private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
#endif
