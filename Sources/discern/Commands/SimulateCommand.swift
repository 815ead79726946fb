import ArgumentParser
import Foundation
import Logging
import Simulator

struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate", abstract: "Serve local simulators of the analysis services (Image Discerner with its S3 upload).")

    @OptionGroup var logging: LogOptions

    @Option(help: "Address to listen on.")
    var host: String = "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free one.")
    var port: Int = 8080

    @Option(help: "Write the base URL to this file once listening (for scripts).")
    var urlFile: String?

    func run() async throws {
        let logger = logging.makeLogger("discern.simulator")
        let urlFile = self.urlFile
        try await SimulatorServer.run(SimulatorConfiguration(host: host, port: port), logger: logger) { url in
            // Written unbuffered: scripts wait for this line.
            FileHandle.standardOutput.write(Data("simulator listening on \(url)\n".utf8))
            if let urlFile { try? Data((url + "\n").utf8).write(to: URL(fileURLWithPath: urlFile), options: .atomic) }
        }
    }
}
