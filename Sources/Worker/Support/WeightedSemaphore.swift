import ServiceLifecycle

/// A weighted semaphore for tasks: holders together take at most `capacity` units; the others
/// wait in order. One holder may exceed the capacity alone, so an item larger than the whole
/// budget still gets through, by itself.
actor WeightedSemaphore {
    private let capacity: Int
    private var used = 0
    private var waiters: [(weight: Int, continuation: CheckedContinuation<Void, Never>)] = []

    init(_ capacity: Int) { self.capacity = max(1, capacity) }

    func acquire(_ weight: Int = 1) async {
        if waiters.isEmpty && (used == 0 || used + weight <= capacity) {
            used += weight
            return
        }
        await withCheckedContinuation { waiters.append((weight, $0)) }
    }

    func release(_ weight: Int = 1) {
        used -= weight
        // First come, first served: a large waiter is not overtaken by small ones forever.
        while let next = waiters.first, used == 0 || used + next.weight <= capacity {
            used += next.weight
            waiters.removeFirst().continuation.resume()
        }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    var milliseconds: Double { seconds * 1000 }
}
