import Foundation
import JobQueue
import Postgres
import Simulator
import TestFixtures
import Testing

/// A worker under a memory limit set on its own cgroup, not the root's: what systemd's
/// `MemoryMax=` does, or a container runtime without a cgroup namespace. A worker that read the
/// root's limit would budget a quarter of the machine and be OOM-killed on 48 MP photos.
@Suite("Memory: the limit of the worker's own cgroup", .integrationTimeLimit)
struct MemoryLimitTests {
    @Test("in a 256 MB cgroup with 48 MP PNGs and JPEGs queued: never OOM-killed, every job succeeds, the limit and where it was found are logged")
    func fitsItsCgroup() async throws {
        guard let cgroup = MemoryCgroup(limitBytes: 256 << 20) else {
            try Test.cancel(
                "this machine lets the test make no memory cgroup under its own (it needs root and cgroup v1, or v2 with the memory controller delegated)"
            )
        }
        defer { cgroup.remove() }
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let photos = folder.appendingPathComponent("photos")
                // Camera-like 48 MP photos: film grain makes the PNGs 120 MB and the JPEGs 40 MB.
                for (format, prefix) in [("png", "png"), ("jpg", "jpg")] {
                    _ = try await Subprocess.run(
                        try WorkerProcess.binary.path,
                        [
                            "samples", photos.path, "--count", "2", "--size", "8000x6000",
                            "--grain", "8", "--quality", "95", "--format", format, "--prefix", prefix
                        ])
                }
                let paths = try FileManager.default.contentsOfDirectory(atPath: photos.path).sorted().map { photos.appendingPathComponent($0).path }
                try await Database(conninfo: conninfo, name: "test-memory").withConnection { connection in
                    try JobQueue.enqueue(connection, paths: paths + paths)
                }
                try await TestSimulator.with(.unthrottled) { simulator in
                    let worker = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                        arguments: ["--drain", "--log-level", "info", "--no-progress"], cgroup: cgroup.folder)
                    let exited = await worker.waitForExit()
                    let census = try await TestDatabase.census(conninfo)
                    let budget = worker.output.split(separator: "\n").first { $0.contains("memory budget") }.map(String.init) ?? "-"
                    print(
                        "memory: a worker in \(cgroup.limitFile) (256 MB): \(budget.suffix(220)); peak \(cgroup.peakBytes.map { "\($0 >> 20) MB" } ?? "unknown"), \(cgroup.oomKills) OOM kill(s), \(census)"
                    )
                    #expect(
                        exited && worker.exitStatus == 0,
                        "exit \(String(describing: worker.exitStatus)) (137: OOM-killed): \(worker.output.suffix(1500))")
                    #expect(cgroup.oomKills == 0)
                    #expect(census.succeeded == 8 && census.jobsWithOneResult == 8, "\(census)")
                    #expect(budget.contains(cgroup.limitFile) && budget.contains("(256 MB)") && budget.contains("max_mb_in_flight=64"), "\(budget)")
                }
            }
        }
    }
}
