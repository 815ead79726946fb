import Foundation

/// The simulator's bucket: objects in memory, the oldest dropped past a byte cap so a long
/// demo or benchmark does not grow without bound.
actor ObjectStore {
    struct Object {
        let data: Data
        let contentType: String
    }

    private var objects: [String: Object] = [:]
    private var order: [String] = []
    private var totalBytes = 0
    private let maxTotalBytes: Int

    init(maxTotalBytes: Int = 512 * 1024 * 1024) {
        self.maxTotalBytes = maxTotalBytes
    }

    func put(_ key: String, _ object: Object) {
        if let old = objects.removeValue(forKey: key) {
            totalBytes -= old.data.count
            order.removeAll { $0 == key }
        }
        objects[key] = object
        order.append(key)
        totalBytes += object.data.count
        while totalBytes > maxTotalBytes, order.count > 1 {
            let evicted = order.removeFirst()
            totalBytes -= objects.removeValue(forKey: evicted)?.data.count ?? 0
        }
    }

    func get(_ key: String) -> Object? { objects[key] }
}
