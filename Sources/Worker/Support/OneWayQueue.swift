/// A one-way queue between two services: one side sends, the other takes, in order; the sender
/// finishes it when it has no more. Waiting does not end on task cancellation: a service that is
/// cancelled still drains what was sent, until the sender finishes the mailbox (which every
/// sender does, however it ends), so nothing sent is lost.
actor OneWayQueue<Item: Sendable> {
    private var items: [Item] = []
    private var head = 0
    private var finished = false
    private var waiter: CheckedContinuation<Item?, Never>?

    func send(_ item: Item) {
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: item)
        } else {
            items.append(item)
        }
    }

    func finish() {
        finished = true
        waiter?.resume(returning: nil)
        waiter = nil
    }

    /// The next item, or nil once the mailbox is finished and empty.
    func next() async -> Item? {
        if let item = take() { return item }
        if finished { return nil }
        return await withCheckedContinuation { waiter = $0 }
    }

    /// Up to `limit` items already waiting, without waiting for more.
    func takeWaiting(upTo limit: Int) -> [Item] {
        var taken: [Item] = []
        while taken.count < limit, let item = take() { taken.append(item) }
        return taken
    }

    private func take() -> Item? {
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return item
    }
}
