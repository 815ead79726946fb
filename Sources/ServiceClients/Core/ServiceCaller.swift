import CurlHTTP
import Foundation
import ErrorCodes
import Metrics
import Telemetry
import Tracing

/// How a client talks to its service: every call waits for the rate limit shared by all
/// workers and for this process's adaptive concurrency limit, and transient failures are retried
/// a few times within the attempt before the job itself is rescheduled.
public struct ServiceCaller: Sendable {
    public struct RetryPolicy: Sendable {
        /// Tries per call, the first included.
        public var tries: Int
        public var firstPauseSeconds: Double
        public var maxPauseSeconds: Double
        /// A Retry-After longer than this ends the attempt instead: the job is rescheduled for
        /// then, and its lease is not held while waiting.
        public var maxInlineWaitSeconds: Double
        /// Calls the service refused to start (`notStarted`) are tried again this often on top
        /// of `tries`: they say nothing about the job, only that the service was busy.
        public var notStartedRetries: Int

        public init(
            tries: Int = 3, firstPauseSeconds: Double = 0.25, maxPauseSeconds: Double = 4, maxInlineWaitSeconds: Double = 15,
            notStartedRetries: Int = 10
        ) {
            self.tries = max(1, tries)
            self.firstPauseSeconds = firstPauseSeconds
            self.maxPauseSeconds = maxPauseSeconds
            self.maxInlineWaitSeconds = maxInlineWaitSeconds
            self.notStartedRetries = max(0, notStartedRetries)
        }
    }

    let http: CurlHTTPClient
    let gate: any RateGate
    let concurrency: AdaptiveConcurrency
    let retry: RetryPolicy
    /// The service's name, for `discern_service_calls_total`.
    let service: String

    public init(
        http: CurlHTTPClient, gate: any RateGate = UnlimitedRateGate(), maxConcurrentCalls: Int = 64,
        retry: RetryPolicy = RetryPolicy(), service: String = ""
    ) {
        self.http = http
        self.gate = gate
        self.concurrency = AdaptiveConcurrency(maximum: maxConcurrentCalls)
        self.retry = retry
        self.service = service
    }

    /// A conversation for one attempt of one job.
    func conversation(_ request: AnalysisRequest) -> Conversation {
        Conversation(caller: self, correlationID: request.correlationID, watch: request.watch)
    }
}

/// The calls of one attempt of one job to its service, counted for `results.api_calls`: each
/// takes a slot of the service's rate limit and is billed (`discern.billed_calls`). The upload
/// to a presigned storage URL goes to the store, takes no slot and is not one.
struct Conversation {
    /// Rate-limit slots a call may miss in a row (a machine too loaded to send on time) before
    /// the attempt fails as retryable.
    static let maxMissedSlots = 5

    let caller: ServiceCaller
    let correlationID: String
    let watch: (any CallWatch)?
    private(set) var calls = 0

    init(caller: ServiceCaller, correlationID: String, watch: (any CallWatch)? = nil) {
        self.caller = caller
        self.correlationID = correlationID
        self.watch = watch
    }

    private func mayRetry() -> Bool { watch?.mayRetry() ?? true }

    /// Sends a request and reads the answer with `read`, which throws a classified error for an
    /// answer that is not a success. A call that is not idempotent (an enrolment without an id)
    /// is retried only after a 429, which the service sends before doing anything.
    mutating func send<T>(
        _ request: HTTPRequest, step: String, limitKey: String? = nil, idempotent: Bool = true,
        read: (HTTPResponse) throws(ServiceError) -> T
    ) async throws(ServiceError) -> T {
        var request = request
        if !correlationID.isEmpty { request.headers.append(HTTPHeader("X-Correlation-ID", correlationID)) }
        let policy = caller.retry
        var pause = policy.firstPauseSeconds
        var tried = 1, notStarted = 0
        while true {
            do {
                return try read(try await once(request, step: step, limitKey: limitKey))
            } catch {
                // A start the service refused is retried without counting, after the wait it
                // implies (with jitter, so callers that collided do not collide again) and then
                // its own slot in the shared rate limit.
                if error.code == .notStarted, notStarted < policy.notStartedRetries, !Task.isCancelled {
                    notStarted += 1
                    let wait = (error.retryAfterSeconds ?? 1) * Double.random(in: 1...1.5)
                    do { try await Task.sleep(for: .seconds(wait)) } catch { throw ServiceError.cancelled(during: step) }
                    continue
                }
                let wait = max(pause * Double.random(in: 0.5...1), error.retryAfterSeconds ?? 0)
                // A spend cap does not lift within a call, nor a refused key: the job goes back to
                // wait for it (the breaker holds the jobs of a key refused).
                guard error.isRetryable, error.code != .capReached, error.code != .authFailed, tried < policy.tries,
                    idempotent || error.code == .rateLimited,
                    wait <= policy.maxInlineWaitSeconds, !Task.isCancelled, mayRetry()
                else { throw error }
                do { try await Task.sleep(for: .seconds(wait)) } catch { throw ServiceError.cancelled(during: step) }
                // The service may have been found down meanwhile.
                guard mayRetry() else { throw error }
                pause = min(pause * 2, policy.maxPauseSeconds)
                tried += 1
            }
        }
    }

    /// One call. The process's concurrency slot comes first and the rate-limit slot last, so a
    /// call goes out the moment its slot in the shared schedule comes: calls that must be spaced
    /// (one analysis start per second) arrive spaced. A call that could not leave within its
    /// slot (`RateSlot`) takes a new one, `maxMissedSlots` times at most.
    private mutating func once(_ request: HTTPRequest, step: String, limitKey: String?) async throws(ServiceError) -> HTTPResponse {
        await caller.concurrency.acquire()
        var missed = 0, started = ContinuousClock.now
        let response: HTTPResponse
        while true {
            var slot = RateSlot.anytime
            if let limitKey {
                do {
                    slot = try await caller.gate.acquire(limitKey)
                } catch {
                    await caller.concurrency.release(.failed)
                    throw error
                }
            }
            do {
                started = max(ContinuousClock.now, slot.sendAt ?? .now)
                response = try await exchange(request, sendAt: slot.sendAt, sendBy: slot.sendBy)
                break
            } catch let error as HTTPError where error.code == .slotMissed {
                // Nothing left: the slot is no billed call (a spend cap must not pay for it).
                if let limitKey { await caller.gate.unused(limitKey) }
                missed += 1
                guard missed > Self.maxMissedSlots else { continue }
                await caller.concurrency.release(.failed)
                throw ServiceError(
                    .slotMissed,
                    "\(step) was not sent: \(missed) rate-limit slots in a row passed before this worker could send "
                        + "(it is too loaded to keep the service's limit); the attempt is handed back")
            } catch {
                await caller.concurrency.release(.failed)
                let cancelled = (error as? HTTPError)?.code == .cancelled
                count(cancelled ? "cancelled" : "no_answer")
                if !cancelled { watch?.called(answered: false) }
                throw ServiceError.transport(error, during: step)
            }
        }
        if limitKey != nil { calls += 1 }
        count(response.status == 429 ? "429" : response.status >= 500 ? "5xx" : response.status >= 400 ? "4xx" : "2xx")
        watch?.called(answered: response.status < 500)
        if response.status == 429 {
            await caller.concurrency.release(.rateLimited)
            if let limitKey { await caller.gate.rateLimited(limitKey, retryAfterSeconds: RetryAfter.seconds(response)) }
        } else {
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            // Latency is compared per rate-limit key: a fixed name per endpoint. A call without
            // one (the PUT to storage: its time follows the photo's size, not the service's load)
            // only counts as answered. Keyed by the step, which names the photo's key, a figure
            // per upload would be kept for the life of the process
            // (docs/decisions/0007-latency-per-endpoint.md).
            await caller.concurrency.release(.answered(seconds: seconds), endpoint: limitKey)
        }
        return response
    }
}

extension Conversation {
    /// One HTTP exchange, in a client span of its own while tracing is on (docs/tracing.md). The
    /// service is sent the span's `traceparent`; storage is not (a presigned upload carries the
    /// headers its signer chose, and S3 reads no trace header).
    fileprivate func exchange(_ request: HTTPRequest, sendAt: ContinuousClock.Instant?, sendBy: ContinuousClock.Instant?) async throws -> HTTPResponse
    {
        guard Traces.isOn else { return try await caller.http.send(request, sendAt: sendAt, sendBy: sendBy) }
        let isUpload = request.method == "PUT"
        let traced = Traces.begin(
            isUpload ? "upload" : request.method, kind: .client,
            ["http.request.method": "\(request.method)", "discern.service": "\(caller.service)"])
        defer { traced.end() }
        var request = request
        if !isUpload, let traceparent = traced.traceparent { request.headers.append(HTTPHeader("traceparent", traceparent)) }
        do {
            let response = try await caller.http.send(request, sendAt: sendAt, sendBy: sendBy)
            traced.set("http.response.status_code", response.status)
            if response.status >= 400 { traced.failed(String(response.status), "HTTP \(response.status)") }
            return response
        } catch {
            // The code only: an error's text may name the URL, and a presigned one is a credential.
            let code = (error as? HTTPError)?.code.rawValue ?? "transport"
            traced.failed(code, "no answer (\(code))")
            throw error
        }
    }

    /// Every call that went out, by what came of it (2xx, 4xx, 429, 5xx, no_answer, cancelled):
    /// how hard a failing service is being called, across retries, probes and jobs.
    fileprivate func count(_ result: String) {
        Counter(label: "discern_service_calls_total", dimensions: [("service", caller.service), ("backend", caller.service), ("result", result)])
            .increment()
    }
}

enum JSONBody {
    static func encode(_ object: [String: Any]) throws(ServiceError) -> Data {
        do {
            return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        } catch {
            throw ServiceError(.misconfigured, "cannot encode a request body: \(error)")
        }
    }

    /// Per-service detail for `results.details`; `{}` if it cannot be encoded.
    static func details(_ object: [String: Any?]) -> String {
        let present = object.compactMapValues { $0 }
        guard let data = try? JSONSerialization.data(withJSONObject: present, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    static func snippet(_ data: Data) -> String {
        HTTPResponse.oneLine(data, limit: 200)
    }
}
