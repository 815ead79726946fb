import ArgumentParser
import Foundation
import Imaging

struct PrepareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prepare", abstract: "Run the image policy on one file and show what would be sent.")

    @Argument(help: "The image file.")
    var file: String

    @Option(name: .shortAndLong, help: "Write the prepared image here.")
    var output: String?

    @Option(help: "Byte budget (default: Image Discerner's 10 MB).")
    var maxBytes: Int = ImagePolicy.discerner.maxBytes

    func run() async throws {
        var policy = ImagePolicy.discerner
        policy.maxBytes = maxBytes
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        let prepared: PreparedImage
        do {
            prepared = try ImagePreparer(policy: policy).prepare(data)
        } catch {
            throw ValidationError("\(file): \(error.message) [\(error.kind)]")
        }
        let original = prepared.original
        print("original: \(original.format.rawValue) \(original.width)x\(original.height), \(original.bytes) bytes, orientation \(original.orientation)")
        print("decision: \(prepared.decision)")
        print("result:   \(prepared.format.rawValue) \(prepared.width)x\(prepared.height), \(prepared.bytes) bytes in \(String(format: "%.1f", prepared.milliseconds)) ms")
        if let output {
            try prepared.data.write(to: URL(fileURLWithPath: output))
            print("written:  \(output)")
        }
    }
}
