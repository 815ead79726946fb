import Testing
@testable import Worker

@Suite("Memory budget: the default fits the machine")
struct MemoryBudgetTests {
    @Test("a quarter of the limit, at least 64 MB and at most 1024 MB")
    func quarterWithinBounds() {
        #expect(MemoryBudget.from(limitBytes: 24 << 30, source: "RAM").megabytes == 1024)
        #expect(MemoryBudget.from(limitBytes: 2 << 30, source: "a cgroup").megabytes == 512)
        #expect(MemoryBudget.from(limitBytes: 128 << 20, source: "a cgroup").megabytes == 64)
        let said = MemoryBudget.from(limitBytes: 2 << 30, source: "the cgroup's memory limit").reason
        #expect(said.contains("the cgroup's memory limit") && said.contains("2048 MB"), "\(said)")
    }

    @Test("cgroup files: a number is a limit; 'max' and v1's 'no limit' are none")
    func cgroupLimits() {
        #expect(MemoryBudget.parseLimit("536870912\n") == 536_870_912)
        #expect(MemoryBudget.parseLimit("max\n") == nil)
        #expect(MemoryBudget.parseLimit("9223372036854771712\n") == nil)
        #expect(MemoryBudget.parseLimit("") == nil)
    }

    @Test("detected on this machine: within the bounds")
    func detected() {
        let budget = MemoryBudget.detect()
        #expect((MemoryBudget.floorMB...MemoryBudget.ceilingMB).contains(budget.megabytes))
    }
}

@Suite("Memory budget: the limit of the cgroup this process is in")
struct CgroupMemoryTests {
    static let v2Mount = "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot"
    static let v1Mounts = """
        31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
        35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
        32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
        """

    static func files(_ table: [String: String]) -> (String) -> String? { { table[$0] } }

    @Test("systemd's MemoryMax= on the unit, no namespace: the unit's memory.max, not the root's")
    func systemdUnitV2() {
        let limit = CgroupMemory.limit(
            membership: "0::/system.slice/discern-worker.service\n", mountinfo: Self.v2Mount,
            read: Self.files([
                "/sys/fs/cgroup/system.slice/discern-worker.service/memory.max": "268435456\n",
                "/sys/fs/cgroup/system.slice/discern-worker.service/memory.high": "max\n",
                "/sys/fs/cgroup/system.slice/memory.max": "max\n"
            ]))
        #expect(limit == CgroupMemory(bytes: 268_435_456, file: "/sys/fs/cgroup/system.slice/discern-worker.service/memory.max"))
    }

    @Test("the tightest of the ancestors' limits, memory.high included")
    func tightestAncestor() {
        let limit = CgroupMemory.limit(
            membership: "0::/workers.slice/night/worker-3\n", mountinfo: Self.v2Mount,
            read: Self.files([
                "/sys/fs/cgroup/workers.slice/night/worker-3/memory.max": "max",
                "/sys/fs/cgroup/workers.slice/night/memory.high": "536870912",
                "/sys/fs/cgroup/workers.slice/memory.max": "1073741824"
            ]))
        #expect(limit == CgroupMemory(bytes: 536_870_912, file: "/sys/fs/cgroup/workers.slice/night/memory.high"))
    }

    @Test("cgroup v1, a container without a namespace: memory.limit_in_bytes at the process's path")
    func containerV1() {
        let membership = "9:name=systemd:/\n4:memory:/process_api/a43dd8\n1:cpu:/\n0::/\n"
        let limit = CgroupMemory.limit(
            membership: membership, mountinfo: Self.v1Mounts,
            read: Self.files([
                "/sys/fs/cgroup/memory/process_api/a43dd8/memory.limit_in_bytes": "268435456\n",
                "/sys/fs/cgroup/memory/process_api/memory.limit_in_bytes": "9223372036854771712\n",
                "/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n"
            ]))
        #expect(limit?.bytes == 268_435_456 && limit?.file == "/sys/fs/cgroup/memory/process_api/a43dd8/memory.limit_in_bytes")
    }

    @Test("a container with a namespace sees its own cgroup as the root; no limit anywhere is none")
    func namespacedAndUnlimited() {
        let namespaced = CgroupMemory.limit(
            membership: "0::/\n", mountinfo: Self.v2Mount,
            read: Self.files([
                "/sys/fs/cgroup/memory.max": "402653184\n"
            ]))
        #expect(namespaced?.bytes == 402_653_184)
        #expect(CgroupMemory.limit(membership: "0::/user.slice\n", mountinfo: Self.v2Mount, read: Self.files([:])) == nil)
    }

    @Test("a mount that shows another part of the hierarchy: its own folder is read")
    func mountedSubtree() {
        let mount = "40 30 0:26 /docker/abc /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 rw"
        #expect(CgroupMemory.Hierarchy.folder("/docker/abc/worker", root: "/docker/abc", mountPoint: "/sys/fs/cgroup") == "/sys/fs/cgroup/worker")
        #expect(CgroupMemory.Hierarchy.folder("/elsewhere", root: "/docker/abc", mountPoint: "/sys/fs/cgroup") == "/sys/fs/cgroup")
        let limit = CgroupMemory.limit(membership: "0::/docker/abc\n", mountinfo: mount, read: Self.files(["/sys/fs/cgroup/memory.max": "300000000"]))
        #expect(limit?.bytes == 300_000_000)
    }
}
