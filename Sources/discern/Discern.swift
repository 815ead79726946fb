import ArgumentParser
import BuildInfo
import DedicatedThreads
import Foundation
import Imaging
import TraceExport
import Worker

@main
struct Discern: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discern",
        abstract: "Batch image analysis: jobs in PostgreSQL, images prepared with libvips, results back in PostgreSQL.",
        discussion: """
            Exit status: 0 all good; 1 the run finished but some jobs are dead (work --drain), or migrations are pending \
            (migrate --status); 64 a wrong flag, setting, configuration file or path; 69 PostgreSQL unreachable or not \
            migrated, or a bucket's store gone part way through an enqueue; 70 an unexpected failure; 76 a newer release migrated the database with a breaking change: upgrade. \
            Shell completions: discern --generate-completion-script bash|zsh|fish (docs/operations.md).
            """,
        // `--version` prints what `discern version` does.
        version: VersionReport.current.text,
        subcommands: [
            MigrateCommand.self, EnqueueCommand.self, WorkCommand.self, StatusCommand.self, JobsCommand.self, RetryCommand.self,
            CancelCommand.self, DeleteCommand.self, PlanCommand.self, ReanalyseCommand.self, TrialCommand.self, EraseCommand.self, PauseCommand.self,
            ResumeCommand.self,
            BatchesCommand.self, ResultsCommand.self,
            ReportCommand.self, QualityCommand.self, ConsoleCommand.self, MonitorCommand.self, PrepareCommand.self, PruneCommand.self,
            SimulateCommand.self, SamplesCommand.self, DoctorCommand.self, VersionCommand.self
        ])
}

extension Discern {
    /// Applies `--config FILE` before the arguments are parsed, so every option's default and
    /// libpq itself see the file's settings.
    static func main() async {
        MemoryTuning.apply(environment: Setting.environment)
        // This and the configuration file below write the environment, and glibc's setenv is
        // unsafe beside a thread reading it: here, before any thread starts, they are alone.
        Vips.settleEnvironment()
        // A reader gone from standard error's pipe (journald restarting, `| head`) must not kill a
        // worker mid-job: the write fails instead, and StandardError drops it.
        signal(SIGPIPE, SIG_IGN)
        var traces: TraceExport?
        do {
            let arguments = try ConfigurationFile.apply(arguments: Array(CommandLine.arguments.dropFirst()))
            // The process-wide settings the libraries take, after the file, which may set them.
            Vips.configure(try Setting.libvipsSettings())
            if Setting.present("DISCERN_AUDIT_BLOCKING").map({ $0 != "0" }) == true { BlockingCallAudit.enable() }
            var command = try parseAsRoot(arguments)
            // After the configuration file: it may set the OTEL_* variables too.
            traces = TraceExport.startIfWanted(Setting.environment)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            await traces?.finish()
        } catch {
            await traces?.finish()
            FailureExit.exit(for: error)
        }
    }
}
