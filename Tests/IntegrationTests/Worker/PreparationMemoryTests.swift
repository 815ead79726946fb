import ServiceClients
import Foundation
import Imaging
import MediaFiles
import SampleImages
import Testing

/// What the worker reserves from its memory budget before preparing a photo
/// (`ImagePreparer.memoryEstimate`) must cover what preparing it holds: a reservation too low
/// lets several such photos be prepared at once past a container's memory limit. GIF, HEIF and
/// WebP decoders hold the whole picture at full size, whatever size it is sent at: a
/// reservation made as if they streamed covers a fraction of what they hold.
/// One case at a time: each encodes a 12 MP photo (HEIF through x265) and runs two processes,
/// and six at once weigh on the whole suite's timing-bound tests.
@Suite("Memory: a photo's reservation covers its preparation", .serialized, .integrationTimeLimit)
struct PreparationMemoryTests {
    @Test(
        "the peak memory of `discern prepare`, above an idle one, is within the photo's reservation",
        arguments: [
            (".gif", false), (".heic", false), (".heic", true), (".heic[bitdepth=10]", false), (".webp", true), (".webp", false)
        ])
    func reservationCoversPreparation(suffix: String, alpha: Bool) async throws {
        try await TestFolder.with { folder in
            let name = "photo" + (suffix.split(separator: "[").first.map(String.init) ?? suffix)
            let photo = folder.appendingPathComponent(name), idle = folder.appendingPathComponent("idle.png")
            try SampleImages.photo(width: 4000, height: 3000, seed: 5, suffix: suffix, alpha: alpha).write(to: photo)
            try SampleImages.photo(width: 64, height: 48, seed: 6, suffix: ".png").write(to: idle)
            let reserved = try ImagePreparer(policy: .discerner).memoryEstimate(file: OpenedFile.named(photo.path))
            let binary = try WorkerProcess.binary.path
            let baseline = try await PeakMemory.of(binary, ["prepare", idle.path, "-o", folder.appendingPathComponent("idle.jpg").path])
            let peak = try await PeakMemory.of(binary, ["prepare", photo.path, "-o", folder.appendingPathComponent("out.jpg").path])
            let held = peak - baseline
            print(
                "memory: preparing a 4000x3000 \(suffix)\(alpha ? " with alpha" : ""): \(held >> 20) MB above an idle prepare, \(reserved >> 20) MB reserved"
            )
            #expect(held <= reserved, "\(suffix): preparing held \(held >> 20) MB, \(reserved >> 20) MB reserved")
        }
    }
}

/// The peak resident memory of a process run to its end, as its parent saw it (the rusage of
/// reaped children): measured by a Python parent, which reaps only its own child (a `wait4`
/// here raced the test runner's other children's reapers).
enum PeakMemory {
    static func of(_ executable: String, _ arguments: [String]) async throws -> Int {
        let script = """
            import resource, subprocess, sys
            subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
            print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            """
        let output = try await Subprocess.run("/usr/bin/python3", ["-c", script, executable] + arguments)
        guard let kilobytes = output.split(separator: "\n").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), kilobytes > 0 else {
            throw TestSetupError("no peak memory from \(executable): \(output.suffix(500))")
        }
        return kilobytes * 1024
    }
}
