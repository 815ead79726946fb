import ArgumentParser
import Foundation
import Worker

@main
struct Discern: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discern",
        abstract: "Batch image analysis: jobs in PostgreSQL, images prepared with libvips, results back in PostgreSQL.",
        version: "0.9.0",
        subcommands: [
            MigrateCommand.self, EnqueueCommand.self, WorkCommand.self, StatusCommand.self, ResultsCommand.self, ReportCommand.self,
            PrepareCommand.self, PruneCommand.self, SimulateCommand.self, SamplesCommand.self,
        ])
}

extension Discern {
    /// Applies `--config FILE` before the arguments are parsed, so every option's default and
    /// libpq itself see the file's settings.
    static func main() async {
        MemoryTuning.apply()
        do {
            let arguments = try ConfigurationFile.apply(arguments: Array(CommandLine.arguments.dropFirst()))
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as SettingError {
            FileHandle.standardError.write(Data("error: \(TerminalText.safe(error.description))\n".utf8))
            Foundation.exit(64)
        } catch {
            exit(withError: error)
        }
    }
}
