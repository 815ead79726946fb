import Testing

/// The waits every integration test rests on: a wait that never holds fails at its own deadline
/// and names the line that waited, rather than hanging until the suite's time limit.
@Suite("Test harness: waits with their own deadlines")
struct WaitingTests {
    @Test("an event wait and a poll that never hold give up at their deadlines, each recording an issue at the waiting line")
    func deadlines() async {
        let events = EventCount()
        await withKnownIssue {
            let held = await events.until(within: .milliseconds(200)) { false }
            #expect(!held)
        } matching: { issue in
            issue.comments.description.contains("gave up") && issue.sourceLocation?.fileName == "WaitingTests.swift"
        }
        await withKnownIssue {
            let held = await Poll.until(within: .milliseconds(300)) { false }
            #expect(!held)
        } matching: { issue in
            issue.comments.description.contains("gave up") && issue.sourceLocation?.fileName == "WaitingTests.swift"
        }
    }

    @Test("a wait that holds at an event records nothing, with a deadline of its own or none")
    func holding() async {
        let events = EventCount()
        Task {
            try? await Task.sleep(for: .milliseconds(50))
            events.bump()
        }
        #expect(await events.until(within: .seconds(60)) { events.value > 0 })
        #expect(await events.until(after: 0, within: nil) { events.value > 0 })
    }
}
