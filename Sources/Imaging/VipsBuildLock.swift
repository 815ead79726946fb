import Foundation

/// A process-wide lock around building libvips pipelines and dropping them, taken only while
/// libvips' ORC vector code is on (`DISCERN_VIPS_ORC=1`).
///
/// libvips compiles ORC code when an operation is built (a resize's `reducev`) and frees it when
/// the operation is finalised. orc 0.4.33 (Debian bookworm) does both without a lock of its own:
/// the test suite crashed inside liborc with several images in flight. ORC is off by default
/// (see `Vips`): then nothing here needs serialising and the lock is never taken, so images are
/// opened, built and dropped on every prepare thread at once.
/// Recursive, because a `VipsImage` may be released while a build holds the lock.
enum VipsBuildLock {
    private static let lock = NSRecursiveLock()

    static func serialized<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        guard Vips.vectorEnabled else { return try body() }
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
