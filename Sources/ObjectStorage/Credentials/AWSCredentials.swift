import CurlHTTP
import Foundation

/// A key pair to sign requests with, and until when it may be used. Only the key id is shown;
/// the secret and the session token are masked wherever a message made of a store's answer
/// would carry them (`Redact`).
public struct AWSCredentials: Sendable, Equatable {
    public let accessKeyID: String
    let secretAccessKey: String
    let sessionToken: String?
    /// nil: a long-lived key, which does not expire.
    public let expiration: Date?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil, expiration: Date? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.expiration = expiration
        // Temporary credentials replace one another: each source keeps only its newest masked
        // (and the one before, which a request in flight may still have been signed with).
        Redact.remember(secret: secretAccessKey, slot: "s3-secret")
        if let sessionToken { Redact.remember(secret: sessionToken, slot: "s3-session-token") }
    }

    /// Whether `text` can be a key id: it goes into every Authorization header, so a source
    /// answering anything else (a line break, a space, a novel) is refused before it is used.
    static func isKeyID(_ text: String) -> Bool {
        (1...128).contains(text.utf8.count) && text.utf8.allSatisfy { (33...126).contains($0) && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: ",") }
    }

    /// Whether the credentials were handed out for a while (a session token): a refusal of
    /// them may mean they have run out, and fetching new ones may help.
    public var isTemporary: Bool { sessionToken != nil || expiration != nil }
}
