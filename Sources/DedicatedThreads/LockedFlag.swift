import Foundation

/// A boolean that one thread sets, once, and any thread reads.
public final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    public init() {}

    public var isSet: Bool { lock.withLock { value } }
    public func set() { lock.withLock { value = true } }
}
