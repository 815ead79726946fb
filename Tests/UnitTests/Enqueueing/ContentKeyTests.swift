import Enqueueing
import Testing

/// The dedupe rule's key: unchanged in form, since the keys already in the database must still
/// match.
@Suite("Content key")
struct ContentKeyTests {
    @Test("content, backend, action and params make the key; empty params add nothing")
    func keyParts() {
        let hex = String(repeating: "ab", count: 32)
        #expect(ContentKey(service: "discerner", action: "analyze", paramsJSON: " {} ").key(sha256: hex) == "sha256:\(hex):discerner:analyze")
        let enrol = ContentKey(service: "ooto", action: "enroll", paramsJSON: #"{"templateId": "t-1"}"#).key(sha256: hex)
        #expect(enrol.hasPrefix("sha256:\(hex):ooto:enroll:") && enrol.count == "sha256:\(hex):ooto:enroll:".count + 16)
        #expect(enrol != ContentKey(service: "ooto", action: "enroll", paramsJSON: #"{"templateId": "t-2"}"#).key(sha256: hex))
        #expect(
            ContentKey(service: "landmark", action: "predict", paramsJSON: "{}").key(sha256: hex)
                != ContentKey(service: "discerner", action: "analyze", paramsJSON: "{}").key(sha256: hex))
    }
}
