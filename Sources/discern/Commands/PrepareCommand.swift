import MediaFiles
import ArgumentParser
import DedicatedThreads
import Enqueueing
import Foundation
import Imaging
import ServiceClients

struct PrepareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prepare",
        abstract: "Run a service's image policy locally and show what would be sent, and why.",
        discussion: "With one file, shows the decision in detail. With several files or folders, prepares them in parallel and prints a summary.")

    @Argument(help: "Image files or folders (searched recursively).")
    var paths: [String]

    @Option(name: .shortAndLong, help: "Write the prepared image here (a folder when preparing several).")
    var output: String?

    @Option(
        name: [.customLong("service"), .customLong("backend")],
        help: ArgumentHelp("Whose image policy (a service that takes videos gets them as they are: it has none).", valueName: "service"))
    var service: ImageServiceChoice = .discerner

    @Option(help: "Override the policy's byte budget.")
    var maxBytes: Int?

    @Option(help: "Override the policy's longest side, in pixels.")
    var maxDimension: Int?

    @Option(
        help:
            "Override the policy's transform floor: how small a JPEG that must be re-encoded may get by a free 1/2, 1/4 or 1/8 decode (0: never below the longest side)."
    )
    var transformFloor: Int?

    @Option(help: "Images prepared at once (default: one per core).")
    var threads: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Print only the summary.")
    var quiet = false

    func validate() throws {
        guard (1...256).contains(threads) else { throw ValidationError("--threads must be from 1 to 256") }
    }

    func run() async throws {
        // The worker's own configuration (DISCERN_DISCERNER_MAX_BYTES and the rest): what prepare
        // shows is what a worker with this environment would send.
        let configured: ImagePolicy?
        do {
            configured = try ServiceEnvironment(Setting.environment).imagePolicy(for: service.service)
        } catch {
            throw ValidationError(error.description)
        }
        guard var policy = configured else {
            throw ValidationError("\(service) takes videos, sent as they are: no image policy to show")
        }
        if let maxBytes {
            guard (1024...1_000_000_000).contains(maxBytes) else { throw ValidationError("--max-bytes must be from 1024 to 1000000000") }
            policy.maxBytes = maxBytes
        }
        if let maxDimension {
            guard (16...65535).contains(maxDimension) else { throw ValidationError("--max-dimension must be from 16 to 65535") }
            policy.maxDimension = maxDimension
        }
        if let transformFloor {
            guard (0...65535).contains(transformFloor) else { throw ValidationError("--transform-floor must be from 0 to 65535") }
            policy.transformFloor = transformFloor == 0 ? nil : transformFloor
        }
        let files = try FileFinder().find(paths)
        if files.count == 1, paths.count == 1, !FileManager.default.isDirectory(paths[0]) {
            let command = self, file = files[0], chosen = policy
            try await OneShotThread.run { try command.prepareOne(file, policy: chosen) }
        } else {
            let report = try await PrepareBatch(policy: policy, threads: threads, outputFolder: output, quiet: quiet).run(files)
            print(report)
        }
    }

    private func prepareOne(_ file: String, policy: ImagePolicy) throws {
        let prepared: PreparedImage
        do {
            prepared = try ImagePreparer(policy: policy).prepare(path: file)
        } catch {
            // Bad input is not a usage mistake: say what is wrong with the file, no usage text.
            StandardError.write("error: \(TerminalText.safe(file)): \(TerminalText.safe(error.message)) [\(error.kind)]\n")
            throw ExitCode.failure
        }
        let original = prepared.original
        print(
            "original: \(original.format.rawValue) \(original.width)x\(original.height), \(original.bytes) bytes, orientation \(original.orientation)"
        )
        print("decision: \(prepared.decision)")
        print(
            "result:   \(prepared.format.rawValue) \(prepared.width)x\(prepared.height), \(prepared.bytes) bytes in \(String(format: "%.1f", prepared.milliseconds)) ms"
        )
        if let output {
            try prepared.data.write(to: URL(fileURLWithPath: output))
            print("written:  \(output)")
        }
    }
}

extension FileManager {
    func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
