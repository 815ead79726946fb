import Testing
import Worker

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
