import Foundation

/// The default of the memory budget (`--max-mb-in-flight`): a quarter of the memory this process
/// may use, between 64 MB and 1 GB. The limit is the tightest of the cgroup this process is in
/// and its ancestors' (a container's, a systemd unit's `MemoryMax=` or `MemoryHigh=`;
/// `CgroupMemory`) when one is set, else the machine's RAM.
///
/// The budget bounds what preparing and sending images may hold at once, whatever lands in the
/// folder; the usual photo holds far less than it reserves only when it is re-encoded (about 20 MB
/// for a 24 MP JPEG decoded at half scale), so a budget that fits the machine keeps every core
/// and every call slot busy. A quarter leaves the rest to libvips' caches, the runtime and
/// anything else on the machine; 1 GB is more than 2 cores x a 4096 px decode plus 16 calls x the
/// largest image a service takes.
public struct MemoryBudget: Sendable, Equatable {
    public let megabytes: Int
    /// Where the limit came from, for the start-up log line.
    public let reason: String

    public static let floorMB = 64
    public static let ceilingMB = 1024

    /// From the cgroup or the RAM of this machine, whichever is less.
    public static func detect() -> MemoryBudget {
        let ram = Int(clamping: ProcessInfo.processInfo.physicalMemory)
        if let cgroup = CgroupMemory.detect(), cgroup.bytes < ram {
            return from(limitBytes: cgroup.bytes, source: "the cgroup memory limit in \(cgroup.file)")
        }
        return from(limitBytes: ram, source: "the machine's RAM")
    }

    package static func from(limitBytes: Int, source: String) -> MemoryBudget {
        let quarter = (limitBytes / 4) >> 20
        let megabytes = min(ceilingMB, max(floorMB, quarter))
        let limitMB = limitBytes >> 20
        return MemoryBudget(
            megabytes: megabytes,
            reason: "a quarter of \(source) (\(limitMB) MB), within \(floorMB)-\(ceilingMB) MB")
    }

    /// "max" (v2) and v1's near-2^63 "no limit" are no limit.
    package static func parseLimit(_ text: String) -> Int? {
        guard let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), value > 0, value < 1 << 60 else { return nil }
        return value
    }
}
