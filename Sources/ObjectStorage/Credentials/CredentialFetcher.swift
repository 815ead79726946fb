import CurlHTTP
import DedicatedThreads
import Foundation

/// What the sources that fetch their credentials share: the HTTP client, the CA bundle, a
/// thread for the files they read (a token the kubelet rotates is read anew each time), and the
/// reading of the answers' expiry times.
struct CredentialFetcher: Sendable {
    let http: CurlHTTPClient
    let caBundle: String?
    let files: ThreadPool

    /// A small file, read on the fetcher's own thread: its text without surrounding space.
    func read(_ path: String, what: String) async throws(ObjectStorageError) -> String {
        let text: String?
        do {
            text = try await files.run {
                // A token or key is a few kilobytes; a larger file is not one.
                guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
                defer { try? handle.close() }
                let data = try handle.read(upToCount: 64 << 10) ?? Data()
                return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            }
        } catch {
            throw ObjectStorageError(.refused, "\(what) \(path) could not be read: \(error)")
        }
        guard let text, !text.isEmpty else {
            throw ObjectStorageError(.refused, "\(what) \(path) is missing or empty")
        }
        return text
    }

    /// Sends a request to a credential endpoint: an answer is returned whatever its status;
    /// no answer at all is `unavailable`.
    func send(_ request: HTTPRequest, what: String) async throws(ObjectStorageError) -> HTTPResponse {
        var request = request
        request.caBundle = caBundle
        do {
            return try await http.send(request)
        } catch let error as HTTPError where error.code == .cancelled {
            throw ObjectStorageError(.cancelled, "\(what) was cancelled")
        } catch {
            throw ObjectStorageError(.unavailable, "\(what) did not answer: \(error)")
        }
    }

    /// `2026-11-29T02:16:22Z`, with or without fractions of a second or an offset.
    static func instant(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let moment = formatter.date(from: text) { return moment }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    /// The JSON credentials document both HTTP endpoints answer (IMDS, container).
    struct Document: Decodable {
        let AccessKeyId: String?
        let SecretAccessKey: String?
        let Token: String?
        let Expiration: String?
        let Code: String?
        let Message: String?
    }

    static func credentials(_ body: Data, from what: String) throws(ObjectStorageError) -> AWSCredentials {
        guard let document = try? JSONDecoder().decode(Document.self, from: body) else {
            // Not a word of it is repeated: a document that failed to decode may still hold a secret.
            throw ObjectStorageError(.unavailable, "\(what) answered \(body.count) bytes that are not a credentials document")
        }
        if let code = document.Code, code != "Success" {
            throw ObjectStorageError(.refused, "\(what) answered \(code)\(document.Message.map { ": \($0)" } ?? "")")
        }
        guard let keyID = document.AccessKeyId, AWSCredentials.isKeyID(keyID), let secret = document.SecretAccessKey, !secret.isEmpty else {
            throw ObjectStorageError(.unavailable, "\(what) answered a credentials document without a usable key")
        }
        var expiration: Date?
        if let text = document.Expiration {
            guard let moment = instant(text) else {
                throw ObjectStorageError(.unavailable, "\(what) answered an Expiration that is not a time: \(text.prefix(40))")
            }
            expiration = moment
        }
        return AWSCredentials(
            accessKeyID: keyID, secretAccessKey: secret, sessionToken: document.Token.flatMap { $0.isEmpty ? nil : $0 }, expiration: expiration)
    }
}
