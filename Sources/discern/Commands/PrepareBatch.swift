import DedicatedThreads
import Foundation
import Imaging
import MediaFiles

/// Prepares many files in parallel on dedicated threads and sums up what happened — for a
/// person checking a folder, and for the benchmark in bench/prepare.
struct PrepareBatch {
    let policy: ImagePolicy
    let threads: Int
    let outputFolder: String?
    let quiet: Bool

    private struct Outcome: Sendable {
        let file: String
        let prepared: PreparedImage?
        let error: String?
    }

    func run(_ files: [String]) async throws -> String {
        if let outputFolder {
            try FileManager.default.createDirectory(atPath: outputFolder, withIntermediateDirectories: true)
        }
        let pool = ThreadPool(name: "discern-prepare", threads: max(1, threads), onThreadExit: Vips.threadShutdown)
        defer { pool.shutdown() }
        let started = Date()
        let policy = self.policy, outputFolder = self.outputFolder
        let outcomes = try await withThrowingTaskGroup(of: Outcome.self) { group in
            for file in files {
                group.addTask() {
                    try await pool.run {
                        do {
                            let prepared = try ImagePreparer(policy: policy).prepare(path: file)
                            if let outputFolder {
                                let name =
                                    URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent + (prepared.format == .png ? ".png" : ".jpg")
                                try prepared.data.write(to: URL(fileURLWithPath: outputFolder).appendingPathComponent(name))
                            }
                            // The pixels are written; only the facts travel back.
                            return Outcome(file: file, prepared: prepared.withoutData, error: nil)
                        } catch let error as ImagingError {
                            return Outcome(file: file, prepared: nil, error: "\(error.message) [\(error.kind)]")
                        } catch {
                            return Outcome(file: file, prepared: nil, error: "\(error)")
                        }
                    }
                }
            }
            var all: [Outcome] = []
            for try await outcome in group {
                if !quiet { print(line(outcome)) }
                all.append(outcome)
            }
            return all
        }
        return summary(outcomes, seconds: Date().timeIntervalSince(started))
    }

    private func line(_ outcome: Outcome) -> String {
        let name = TerminalText.safe(URL(fileURLWithPath: outcome.file).lastPathComponent)
        guard let prepared = outcome.prepared else { return "\(name): FAILED \(TerminalText.safe(outcome.error ?? ""))" }
        return "\(name): \(prepared.decision) [\(String(format: "%.0f", prepared.milliseconds)) ms]"
    }

    private func summary(_ outcomes: [Outcome], seconds: Double) -> String {
        let prepared = outcomes.compactMap(\.prepared)
        let transformed = prepared.filter { !$0.passedThrough }
        let encodes = transformed.map(\.encodeCount).sorted()
        let median = encodes.isEmpty ? 0 : encodes[encodes.count / 2]
        let within = prepared.filter { $0.bytes <= policy.maxBytes }.count
        let bytesIn = prepared.reduce(0) { $0 + $1.original.bytes }
        let bytesOut = prepared.reduce(0) { $0 + $1.bytes }
        return """
            images: \(outcomes.count)  passed through: \(prepared.count - transformed.count)  transformed: \(transformed.count)  failed: \(outcomes.count - prepared.count)
            within budget: \(within)/\(prepared.count)  median encodes per transformed image: \(median)  max encodes: \(encodes.last ?? 0)
            bytes in: \(bytesIn)  bytes out: \(bytesOut)
            seconds: \(String(format: "%.3f", seconds))  images/s: \(String(format: "%.2f", Double(outcomes.count) / max(seconds, 1e-9)))
            """
    }
}
