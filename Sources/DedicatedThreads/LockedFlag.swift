import Synchronization

/// A boolean that one thread sets, once, and any thread reads: the one flag type of the code
/// (a stop asked of a thread, a transfer aborted, libvips started).
public final class LockedFlag: Sendable {
    private let value = Mutex(false)

    public init() {}

    public var isSet: Bool { value.withLock { $0 } }
    public func set() { value.withLock { $0 = true } }
}
