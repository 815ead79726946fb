import Foundation
@testable import ObjectStorage
import Synchronization
import Testing

/// Temporary credentials, shared by every request of a process and fetched again before they
/// run out, on a clock the test moves.
@Suite("Bucket credentials: fetched once, shared, fetched again in time")
struct CredentialProviderTests {
    final class Stage: Sendable {
        let moment = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        /// The monotonic clock, moved with the wall clock.
        let started = ContinuousClock.now
        let elapsed = Mutex(Duration.zero)
        let fetches = Mutex(0)
        let failing = Mutex(false)
        /// While set, a fetch that starts waits for `release()`.
        let holding = Mutex(false)
        let held = Mutex<[CheckedContinuation<Void, Never>]>([])
        var now: Date { moment.withLock { $0 } }
        func advance(_ seconds: TimeInterval) {
            moment.withLock { $0 += seconds }
            elapsed.withLock { $0 += .seconds(seconds) }
        }

        func release() {
            holding.withLock { $0 = false }
            let waiting = held.withLock { waiting in
                defer { waiting = [] }
                return waiting
            }
            for continuation in waiting { continuation.resume() }
        }

        /// A provider whose every fetch hands out credentials lasting `lifetime` s from the
        /// stage's now, named by their number.
        func provider(lifetime: TimeInterval) -> CredentialProvider {
            let source = CredentialSource.container(ContainerEndpoint(url: URL(string: "http://127.0.0.1/c")!, token: nil))
            return CredentialProvider(
                source: source, clock: StoreClock(host: { self.now }), uptime: { self.started + self.elapsed.withLock { $0 } }
            ) { () async throws(ObjectStorageError) in
                if self.failing.withLock({ $0 }) { throw ObjectStorageError(.refused, "the agent refused the pod's token") }
                let number = self.fetches.withLock { count in
                    count += 1
                    return count
                }
                await withCheckedContinuation { continuation in
                    let wait = self.holding.withLock { holding in
                        if holding { self.held.withLock { $0.append(continuation) } }
                        return holding
                    }
                    if !wait { continuation.resume() }
                }
                try? await Task.sleep(for: .milliseconds(5))
                return AWSCredentials(
                    accessKeyID: "ASIA\(number)", secretAccessKey: "secret-\(number)", sessionToken: "token-\(number)-000000",
                    expiration: self.now.addingTimeInterval(lifetime))
            }
        }
    }

    @Test("a hundred requests at once share one fetch")
    func sharedFetch() async throws {
        let stage = Stage()
        let provider = stage.provider(lifetime: 3600)
        let keys = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<100 { group.addTask { try await provider.credentials().accessKeyID } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(keys == ["ASIA1"] && stage.fetches.withLock { $0 } == 1)
    }

    @Test(
        "an hour's credentials serve until 10 minutes before they end; the first request after that fetches new ones while the others are still given the old; a minute's are fetched again halfway, and none in its last 15 s"
    )
    func refreshInTime() async throws {
        let stage = Stage()
        let provider = stage.provider(lifetime: 3600)
        #expect(try await provider.credentials().accessKeyID == "ASIA1")
        stage.advance(49 * 60)
        #expect(try await provider.credentials().accessKeyID == "ASIA1" && stage.fetches.withLock { $0 } == 1)
        stage.advance(2 * 60)
        stage.holding.withLock { $0 = true }
        async let refreshed = provider.credentials().accessKeyID
        try await Self.until { stage.fetches.withLock { $0 } == 2 }
        // The fetch is under way (held): every other request is still signed with the old ones.
        #expect(try await provider.credentials().accessKeyID == "ASIA1")
        stage.release()
        #expect(try await refreshed == "ASIA2")
        #expect(try await provider.credentials().accessKeyID == "ASIA2" && stage.fetches.withLock { $0 } == 2)

        let short = Stage()
        let minute = short.provider(lifetime: 60)
        _ = try await minute.credentials()
        short.advance(29)
        #expect(try await minute.credentials().accessKeyID == "ASIA1" && short.fetches.withLock { $0 } == 1)
        short.advance(2)
        #expect(try await minute.credentials().accessKeyID == "ASIA2")
        // In their last 15 s none are used: a request waits for new ones.
        short.advance(50)
        #expect(try await minute.credentials().accessKeyID == "ASIA3")
    }

    @Test(
        "credentials the store refused are fetched again, once per 30 s when the new ones are refused too; a fetch that fails is answered for 5 s without asking again, naming the source"
    )
    func refusedAndFailing() async throws {
        let stage = Stage()
        let provider = stage.provider(lifetime: 3600)
        let first = try await provider.credentials()
        // Refused a moment after they were fetched (a session revoked): replaced at once.
        stage.advance(1)
        #expect(provider.refused(first))
        let second = try await provider.credentials()
        #expect(second.accessKeyID == "ASIA2")
        // A refusal of credentials already replaced changes nothing.
        provider.refused(first)
        #expect(try await provider.credentials().accessKeyID == "ASIA2" && stage.fetches.withLock { $0 } == 2)
        // The replacement refused too: a store that refuses whatever the source hands out is
        // not asked for more within 30 s.
        #expect(!provider.refused(second))
        #expect(try await provider.credentials().accessKeyID == "ASIA2" && stage.fetches.withLock { $0 } == 2)
        stage.advance(31)
        #expect(provider.refused(second))
        #expect(try await provider.credentials().accessKeyID == "ASIA3")

        stage.advance(31)
        stage.failing.withLock { $0 = true }
        provider.refused(try await provider.credentials())
        let failure = await #expect(throws: ObjectStorageError.self) { _ = try await provider.credentials() }
        #expect(failure?.code == .refused && failure?.message.contains("container credentials endpoint http://127.0.0.1/c") == true)
        stage.failing.withLock { $0 = false }
        await #expect(throws: ObjectStorageError.self, "within 5 s the failure is answered again") { _ = try await provider.credentials() }
        stage.advance(6)
        #expect(try await provider.credentials().accessKeyID == "ASIA4")
    }

    @Test("credentials handed out already spent are a failure, held as one: not a fetch for every request")
    func spentCredentials() async throws {
        let stage = Stage()
        let provider = stage.provider(lifetime: 10)
        let spent = await #expect(throws: ObjectStorageError.self) { _ = try await provider.credentials() }
        #expect(spent?.code == .unavailable && spent?.message.contains("expire at") == true, "\(String(describing: spent))")
        await #expect(throws: ObjectStorageError.self) { _ = try await provider.credentials() }
        #expect(stage.fetches.withLock { $0 } == 1)
    }

    @Test("long-lived keys are never fetched again, refused or not")
    func longLivedKeys() async throws {
        let keys = AWSCredentials(accessKeyID: "AKIASTATIC", secretAccessKey: "static-secret")
        let provider = CredentialProvider(source: .keys(keys, from: "AWS_ACCESS_KEY_ID"), clock: StoreClock(), current: keys) { keys }
        #expect(!provider.refused(keys))
        #expect(try await provider.credentials() == keys)
    }

    /// Until the background fetch has landed (it takes 20 ms), 5 s at most.
    static func until(_ condition: () async throws -> Bool) async throws {
        for _ in 0..<500 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the condition never held")
    }
}

@Suite("Bucket credentials: what a credentials endpoint answers")
struct CredentialDocumentTests {
    @Test(
        "a credentials document is read as IMDS and the agents write it; garbage, a key id with a line break, a failed Code and a bad Expiration are refused"
    )
    func documents() throws {
        let good = try CredentialFetcher.credentials(
            Data(
                #"{"Code": "Success", "AccessKeyId": "ASIAEXAMPLE", "SecretAccessKey": "s3cr3t-value", "Token": "tok-123456", "Expiration": "2026-11-29T02:16:22Z"}"#
                    .utf8),
            from: "test")
        #expect(
            good.accessKeyID == "ASIAEXAMPLE" && good.sessionToken == "tok-123456" && good.expiration == Date(timeIntervalSince1970: 1_795_918_582))
        let fractional = try CredentialFetcher.credentials(
            Data(#"{"AccessKeyId": "ASIAEXAMPLE", "SecretAccessKey": "s", "Token": "t", "Expiration": "2026-11-29T02:16:22.500+00:00"}"#.utf8),
            from: "test")
        #expect(fractional.expiration == Date(timeIntervalSince1970: 1_795_918_582.5))
        for hostile in [
            "not json", "{}", #"{"AccessKeyId": "AKIA\r\nX-Evil: 1", "SecretAccessKey": "s"}"#,
            #"{"AccessKeyId": "AKIA EX", "SecretAccessKey": "s"}"#,
            #"{"AccessKeyId": "ASIA", "SecretAccessKey": ""}"#, #"{"Code": "AssumeRoleUnauthorizedAccess", "Message": "no role"}"#,
            #"{"AccessKeyId": "ASIA", "SecretAccessKey": "s", "Expiration": "tomorrow"}"#, String(repeating: "[", count: 100_000)
        ] {
            #expect(throws: ObjectStorageError.self, "\(hostile.prefix(60))") {
                _ = try CredentialFetcher.credentials(Data(hostile.utf8), from: "test")
            }
        }
    }
}
