import Foundation
import Postgres
import SQLSchema

/// Re-analysis: the photos whose current answer from a service matches a selection, enqueued
/// again on purpose (discern.reanalyse, docs/operations.md "Re-analysing photos"), with the
/// forecast of what they will take, read from the service's plan with them enqueued. Both run in
/// one transaction: a dry run rolls it back, so the forecast is the plan's own arithmetic and
/// nothing is enqueued.
public enum Reanalysis {
    public struct Selection: Sendable, Equatable {
        /// Names the batch (`reanalysis:NAME`) and the jobs' unique keys: the same name run again
        /// adds only what it did not.
        public var name: String
        public var service: String
        public var action: String?
        public var batch: String?
        /// Results created in [since, before).
        public var since: Date?
        public var before: Date?
        public var model: String?
        public var modelVersion: String?
        public var serviceHost: String?
        public var discernVersion: String?
        public var category: String?
        public var confidenceMin: Double?
        public var confidenceMax: Double?
        /// Settings or identifiers the result's provenance must hold, e.g. ["person_group": "staff"].
        public var provenance: [String: String] = [:]
        public var atMost: Int?
        public var priority = QueueConstants.backgroundPriority

        public init(name: String, service: String) {
            self.name = name
            self.service = service
        }

        /// As a person reads it, for the operator log: "service discerner, batch requal, model old".
        public var scope: String {
            let fields: [String?] = [
                "service \(service)", action.map { "action \($0)" }, batch.map { "batch \($0)" },
                since.map { "since \($0.formatted(.iso8601))" }, before.map { "before \($0.formatted(.iso8601))" },
                model.map { "model \($0)" }, modelVersion.map { "model version \($0)" }, serviceHost.map { "host \($0)" },
                discernVersion.map { "release \($0)" }, category.map { "category \($0)" },
                confidenceMin.map { "confidence >= \($0)" }, confidenceMax.map { "confidence <= \($0)" },
                atMost.map { "at most \($0)" }
            ]
            return (fields.compactMap { $0 } + provenance.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" })
                .joined(separator: ", ")
        }

        var statement: Queries.Reanalysis.Start {
            let iso = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
            let held = try? JSONSerialization.data(withJSONObject: provenance, options: [.sortedKeys])
            return Queries.Reanalysis.Start(
                name: name, service: service, action: action, batch: batch, since: since?.formatted(iso), before: before?.formatted(iso),
                model: model, modelVersion: modelVersion, serviceHost: serviceHost, discernVersion: discernVersion, category: category,
                confidenceMin: confidenceMin, confidenceMax: confidenceMax,
                provenance: provenance.isEmpty ? nil : held.map { String(decoding: $0, as: UTF8.self) }, atMost: atMost, priority: priority)
        }
    }

    /// What a re-analysis holds and what it will take.
    public struct Forecast: Codable, Sendable, Equatable {
        public let name: String
        public let batch: String
        /// Photos the selection holds, and the jobs added for them (fewer when the name ran before).
        public let selected: Int
        public let enqueued: Int
        /// Jobs of the service waiting or running besides the re-analysis: they go first.
        public let ahead: Int
        /// Calls a job takes: what the photos' current answers took (else the service's recent
        /// jobs; nil before any); attempts a job of the service took lately.
        public let callsPerJob: Double?
        public let attemptsPerJob: Double?
        /// Calls the added jobs will make (one a job before anything is measured), and their cost.
        public let calls: Int
        public let pricePerCall: Double?
        public let cost: Double?
        /// The pace the plan takes (nil when nothing moves the service), what binds it, and when
        /// the service's queue, the re-analysis last, is done.
        public let perMinute: Double?
        public let constraint: String?
        public let finishEarly: String?
        public let finishLate: String?
        /// The spend cap in calls, its period and its calls so far; nil without a cap.
        public let capCalls: Double?
        public let capPeriod: String?
        public let capUsed: Int?
        /// Of the added jobs, how many the spend cap leaves room for this period after the jobs
        /// ahead, at most (the cap stops the rest, which wait for the next period; a call of a job
        /// the cap then stopped is billed too); nil without a cap.
        public let photosWithinCap: Int?
        /// Whether it was enqueued (false for a dry run).
        public let started: Bool
    }

    /// Enqueues the selection (unless `dryRun`) and returns its forecast; recorded in the
    /// operator log `by` whom, in the same transaction.
    public static func start(_ selection: Selection, on connection: Connection, by actor: String, dryRun: Bool) throws -> Forecast {
        struct DryRun: Error { let forecast: Forecast }
        do {
            return try connection.transaction { connection in
                let forecast = try enqueue(selection, connection, started: !dryRun)
                if dryRun { throw DryRun(forecast: forecast) }
                guard forecast.enqueued > 0 else { return forecast }
                try OperatorLog.record(
                    connection, actor: actor, action: "reanalyse", scope: selection.scope, jobs: forecast.enqueued, batch: forecast.batch)
                return forecast
            }
        } catch let dry as DryRun {
            return dry.forecast
        } catch let error as PostgresError where error.sqlState == "22023" {
            throw QueueError(.invalidSelection, error.primaryMessage)
        }
    }

    private static func enqueue(_ selection: Selection, _ connection: Connection, started: Bool) throws -> Forecast {
        guard let added = try connection.run(selection.statement).first else {
            throw QueueError(.invalidSelection, "discern.reanalyse returned nothing")
        }
        let enqueued = added.enqueued, batch = added.batch
        let plan = try connection.run(Queries.Reanalysis.Forecast(service: selection.service, batch: batch)).first
        // What these photos' current answers took is the best measure of what they take again;
        // the service's recent jobs stand in for answers that did not count their calls.
        let measured = added.measured, attemptsPerJob = plan?.attemptsPerJob
        let callsPerJob = measured > 0 ? Double(added.measuredCalls) / Double(measured) : plan?.callsPerJob
        let calls = Int((Double(enqueued) * max(callsPerJob ?? 1, 1) * max(attemptsPerJob ?? 1, 1)).rounded())
        let price = plan?.pricePerCall, ahead = plan?.ahead ?? 0
        let capCalls = plan?.capCalls, capUsed = plan?.capUsed
        let perJob = max(callsPerJob ?? 1, 1) * max(attemptsPerJob ?? 1, 1)
        let within = capCalls.flatMap { cap in
            capUsed.map { used in
                // Compared as a Double first: a cap near bigint's largest would not fit an Int.
                Int(min(Double(enqueued), max(0, cap - Double(used) - Double(ahead) * perJob) / perJob))
            }
        }
        return Forecast(
            name: selection.name, batch: batch, selected: added.selected, enqueued: enqueued,
            ahead: ahead,
            callsPerJob: callsPerJob, attemptsPerJob: attemptsPerJob, calls: calls, pricePerCall: price,
            cost: price.map { ($0 * Double(calls) * 100).rounded() / 100 },
            perMinute: plan?.perMinute, constraint: plan?.constraintText, finishEarly: plan?.finishEarly, finishLate: plan?.finishLate,
            capCalls: capCalls, capPeriod: plan?.capPeriod, capUsed: capUsed, photosWithinCap: within,
            started: started)
    }
}
