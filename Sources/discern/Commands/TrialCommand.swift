import ArgumentParser
import ServiceClients
import BuildInfo
import Foundation
import JobQueue
import MediaFiles
import ObjectStorage
import Postgres
import QueueReads
import Worker

struct TrialCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trial",
        abstract: "Try a candidate service or setting on a sample of a batch before a cutover, and compare it with production.",
        discussion: """
            The candidate's answers are kept apart (discern.trial_results): no production view, report or webhook sees them. \
            Examples: discern trial run vision-v4 --batch requal --share 0.05 --set DISCERN_DISCERNER_URL=https://candidate.example/; \
            discern trial report vision-v4 --format json
            """,
        subcommands: [TrialRunCommand.self, TrialReportCommand.self, TrialListCommand.self])
}

struct TrialRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Ask the candidate about the sample's photos it has not answered yet, then print the report.",
        discussion: """
            The sample is reproducible: the same name (or --seed), batch and size give the same photos. Run again, the trial \
            asks only for what it lacks (a photo the candidate failed on is asked again). The candidate's calls take the \
            service's rate-limit slots and count against its spend cap.
            """)

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LogOptions

    @Argument(help: "The trial's name: 1 to 100 letters, digits, dots, dashes, underscores or colons.")
    var name: String

    @Option(help: "The batch whose photos are sampled.")
    var batch: String

    @Option(help: "Sample this many photos.")
    var count: Int?

    @Option(help: "Sample this share of the batch's photos (0-1, e.g. 0.05), rounded up.")
    var share: Double?

    @Option(help: "Draw the sample with this seed. Default: one made from the name.")
    var seed: Int64?

    @Option(help: ArgumentHelp("The candidate service.", valueName: "service"))
    var service: ServiceChoice = .discerner

    @Option(help: "The candidate's action. Default: the service's main one.")
    var action: String?

    @Option(help: ArgumentHelp("The production service the candidate is compared with. Default: the candidate's.", valueName: "service"))
    var against: ServiceChoice?

    @Option(help: "The production action. Default: the candidate's.")
    var againstAction: String?

    @Option(
        name: .customLong("set"),
        help: ArgumentHelp(
            "VARIABLE=value: a setting of the candidate service (its URL, key, format; docs/services.md). Repeatable.", valueName: "var=value"))
    var settings: [String] = []

    @Option(
        name: .customLong("path-root"),
        help: "A folder photos may be read from (repeatable). Default: $DISCERN_PATH_ROOTS. Required: nothing outside is opened.")
    var pathRoots: [String] = []

    @Option(help: "Photos in flight at once.")
    var concurrency: Int = 4

    @Option(help: "Threads preparing photos.")
    var prepareThreads: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)

    func validate() throws {
        guard (1...100).contains(name.count), name.wholeMatch(of: /[A-Za-z0-9._:-]+/) != nil else {
            throw ValidationError("a trial is named with 1 to 100 letters, digits, dots, dashes, underscores or colons")
        }
        guard (count == nil) != (share == nil) else { throw ValidationError("give the sample's size: --count N or --share 0.05") }
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        if let share, !(share > 0 && share <= 1) { throw ValidationError("--share must be above 0 and at most 1") }
        guard (1...256).contains(concurrency), (1...256).contains(prepareThreads) else {
            throw ValidationError("--concurrency and --prepare-threads must be from 1 to 256")
        }
        _ = try candidateVariables()
    }

    func run() async throws {
        let logger = logging.makeLogger("discern.trial")
        let roots = try Setting.pathRoots(pathRoots), buckets = try Setting.objectRoots(pathRoots)
        guard roots != nil || !buckets.isEmpty else {
            throw SettingError("set the folders (or buckets) photos may be read from: --path-root /photos or DISCERN_PATH_ROOTS")
        }
        let variables = try candidateVariables()
        let environment = ServiceEnvironment(variables)
        let gate = PostgresRateGate(conninfo: database.conninfo, logger: logger)
        let built: [any AnalysisClient]
        do {
            built = try environment.clients(gate: gate, maxConcurrentCalls: concurrency)
        } catch {
            throw SettingError(error.description)
        }
        guard let client = built.first(where: { $0.name == service.rawValue }) else {
            throw SettingError("the candidate \(service) has no URL: --set \(service.service.urlVariable)=https://...")
        }
        let action = self.action ?? service.service.actions[0]
        let definition = Trials.Definition(
            name: name, service: service.rawValue, action: action, productionService: (against ?? service).rawValue,
            productionAction: againstAction ?? action, batch: batch, sampleCount: count, share: share,
            seed: seed ?? Trials.Definition.seed(of: name), candidate: service.service.recordedSettings(variables))
        let db = Database(conninfo: database.conninfo)
        let trial = try await db.withConnection { try Trials.open(definition, on: $0) }
        let objects = try buckets.isEmpty ? nil : ObjectReader(store: try Setting.objectStore(logger: logger), allowed: buckets)
        let runner = TrialRunner(
            database: db, client: client,
            settings: .init(
                roots: roots ?? PathRoots(merging: []), objects: objects, concurrency: concurrency, prepareThreads: prepareThreads,
                release: BuildInfo.version))
        let summary = try await runner.run(trial)
        print(
            "asked \(trial.definition.service) about \(summary.answered + summary.failed) photo(s): \(summary.answered) answered, "
                + "\(summary.failed) failed" + (summary.stoppedBy.map { "; \($0), \(summary.left) left" } ?? ""))
        if let report = try await database.reader().trialReport(name) { print(TrialText.render(report)) }
        if summary.stoppedBy != nil { throw ExitCode(ExitStatus.unavailable) }
    }

    /// The environment the candidate is built from: this process's, with `--set` on top. Only
    /// the candidate service's own variables may be set.
    func candidateVariables() throws -> [String: String] {
        var variables = Setting.environment
        let own = Set([service.service.urlVariable] + service.service.variables)
        for setting in settings {
            guard let equals = setting.firstIndex(of: "="), equals != setting.startIndex else {
                throw ValidationError("--set takes VARIABLE=value, not \(setting.prefix(60))")
            }
            let name = String(setting[..<equals])
            guard own.contains(name) else {
                throw ValidationError("--set \(name): not a setting of \(service); its settings: \(own.sorted().joined(separator: ", "))")
            }
            variables[name] = String(setting[setting.index(after: equals)...])
        }
        return variables
    }
}

struct TrialReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "A trial's comparison: agreement with production per field, accuracy on reviewed photos, calibration, calls, cost, latency.")

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The trial's name.")
    var name: String

    @Option(help: "table or json (the console's /api/trials/NAME).")
    var format: OutputFormat = .table

    func run() async throws {
        guard let report = try await database.reader().trialReport(name) else {
            throw SettingError("there is no trial named '\(name)': discern trial list shows them")
        }
        if format == .json { return try JSONOutput.printView(report) }
        print(TrialText.render(report))
    }
}

struct TrialListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Every trial, newest first.")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "table or json.")
    var format: OutputFormat = .table

    func run() async throws {
        let list = try await database.reader().trials()
        if format == .json { return try JSONOutput.printView(list) }
        guard !list.items.isEmpty else { return print("no trial yet") }
        print(
            TextTable.render(
                headers: ["trial", "candidate", "against", "batch", "sample", "answered", "failed", "started"],
                rows: list.items.map {
                    [
                        $0.name, "\($0.service) \($0.action)", $0.productionService, $0.batch, TrialFormat.sample($0.sampleCount, $0.share),
                        "\($0.answered)", "\($0.failed)", ViewText.time($0.createdAt)
                    ]
                }))
    }
}
