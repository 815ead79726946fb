import CurlHTTP
import Foundation

/// What a refusal from the store means, by S3's error code first and its HTTP status second
/// (a HEAD's answer has no body): the error to throw, and what could make the next try go
/// through.
extension StoreRefusal {
    enum Remedy: Sendable, Equatable {
        /// The store's weather: wait (its Retry-After, if it said) and ask again.
        case wait(retryAfter: Double?)
        /// The credentials ran out (or are unknown now): fetch new ones.
        case fetchCredentials
        /// This host's clock is off: sign in the store's time.
        case correctClock(Date)
        /// The bucket is in another region: ask there.
        case askRegion(String)

        enum Kind: Hashable { case wait, fetchCredentials, correctClock, askRegion }

        var kind: Kind {
            switch self {
            case .wait: return .wait
            case .fetchCredentials: return .fetchCredentials
            case .correctClock: return .correctClock
            case .askRegion: return .askRegion
            }
        }
    }

    /// Codes that say the session has run out, or is not known (any more).
    static let expiredCodes: Set<String> = ["ExpiredToken", "InvalidToken", "TokenRefreshRequired"]
    /// Codes that say the request's time is too far from the store's.
    static let clockCodes: Set<String> = ["RequestTimeTooSkewed", "RequestExpired", "RequestInTheFuture"]
    /// Codes that say the bucket is in another region, or at another endpoint.
    static let regionCodes: Set<String> = [
        "PermanentRedirect", "TemporaryRedirect", "AuthorizationHeaderMalformed", "IllegalLocationConstraintException"
    ]
    /// Codes that are the store's weather whatever their status.
    static let weatherCodes: Set<String> = ["SlowDown", "RequestTimeout", "InternalError", "ServiceUnavailable", "Throttling", "ThrottlingException"]

    /// What was asked, as the judge of its refusal needs it.
    struct Asked {
        let method: String
        let what: String
        let bucket: String
        let used: AWSCredentials
        let region: String
        let source: CredentialSource
        /// When the request was signed, in the store's time as far as it is known.
        let signedAt: Date
        /// The same credential read another object of the bucket a moment ago.
        let readBucketRecently: Bool
    }

    static func judge(_ response: HTTPResponse, _ asked: Asked) -> (error: ObjectStorageError, remedy: Remedy?) {
        let document = StoreAnswers.error(response.body)
        let code = document?.code
        let said = document.map { ": \($0.code)\($0.message.isEmpty ? "" : " \($0.message)")" } ?? " (HTTP \(response.status))"
        let storeCode = code ?? "HTTP \(response.status)"
        func error(_ errorCode: ObjectStorageError.Code, _ message: String, retryAfter: Double? = nil) -> ObjectStorageError {
            ObjectStorageError(errorCode, message, storeCode: storeCode, retryAfterSeconds: retryAfter)
        }
        let (status, what, bucket, region, used) = (response.status, asked.what, asked.bucket, asked.region, asked.used)
        let storeTime = response.header("Date").flatMap(StoreClock.httpDate) ?? document?.serverTime.flatMap(CredentialFetcher.instant)
        let credential = asked.source.kind == "keys" ? asked.source.description : "access key \(used.accessKeyID) from \(asked.source)"

        if code == "NoSuchKey" || (status == 404 && code == nil) {
            return (error(.noSuchKey, "\(what) is not in the bucket (deleted or renamed since it was enqueued?)\(said)"), nil)
        }
        if code == "NoSuchBucket" {
            return (error(.noSuchBucket, "bucket \(bucket) does not exist at the store\(said)"), nil)
        }
        if code == "InvalidObjectState" {
            return (
                error(
                    .archived,
                    "\(what) is in an archive storage class and cannot be read until it is restored\(said): restore it (S3 RestoreObject), then discern retry"
                ), nil
            )
        }
        let bucketRegion = response.header("x-amz-bucket-region").flatMap(StoreAnswers.regionName) ?? document?.region
        if let code, regionCodes.contains(code) || status == 301 || status == 307 {
            let elsewhere = bucketRegion.flatMap { $0 == region ? nil : $0 }
            return (
                error(
                    .invalid,
                    "bucket \(bucket) is not asked where it is (region \(region)\(elsewhere.map { "; it is in \($0)" } ?? ""))\(said): set AWS_REGION to the bucket's region"
                ), elsewhere.map { .askRegion($0) }
            )
        }
        if code == nil, status == 301 || status == 307 || status == 400, let other = bucketRegion, other != region {
            return (
                error(.invalid, "bucket \(bucket) is in region \(other), not \(region) (HTTP \(status)): set AWS_REGION to it"), .askRegion(other)
            )
        }
        // A HEAD's 400 has no body to say why: for a session, most likely that it ran out.
        let bareSessionRefusal = code == nil && status == 400 && asked.method == "HEAD" && used.isTemporary
        if bareSessionRefusal || code.map({ expiredCodes.contains($0) || ($0 == "InvalidAccessKeyId" && used.isTemporary) }) == true {
            return (
                error(
                    .refused, "the store refused the session of \(credential) for bucket \(bucket)\(said): the source's credentials are not accepted"),
                .fetchCredentials
            )
        }
        let skew = storeTime.map { $0.timeIntervalSince(asked.signedAt) } ?? 0
        if status == 401 || status == 403 || (code.map(clockCodes.contains) ?? false) {
            if let storeTime, (code.map(clockCodes.contains) ?? false) || abs(skew) > 300 {
                return (
                    error(
                        .refused,
                        "the store refused a signature made \(String(format: "%.0f", abs(skew))) s \(skew > 0 ? "behind" : "ahead of") its clock for \(what)\(said): set this host's clock right (NTP)"
                    ), .correctClock(storeTime)
                )
            }
            if code == "AccessDenied", asked.readBucketRecently {
                // The credential reads this bucket: what it may not read is this object.
                return (
                    error(
                        .rejected,
                        "\(what) was refused\(said), while the same credential read another object of the bucket a moment ago: the object is gone (to a role without s3:ListBucket, S3 answers AccessDenied for a missing key), belongs to another account, or is encrypted with a KMS key the role may not use"
                    ), nil
                )
            }
            let message = (document?.message ?? "").lowercased()
            let kms =
                ["kms", "ciphertext", "customer master key"].contains(where: message.contains)
                ? " (the objects are encrypted with a KMS key: the role needs kms:Decrypt on it)" : ""
            return (
                error(.refused, "the store refused \(credential) for bucket \(bucket)\(said)\(kms): check the credential and the bucket's policy"),
                nil
            )
        }
        if code == "NotImplemented" || status == 501 {
            // The store does not do what was asked: asking again changes nothing.
            return (error(.rejected, "\(asked.method) \(what): the store does not do what discern asked\(said)"), nil)
        }
        if status == 429 || status >= 500 || (code.map(weatherCodes.contains) ?? false) {
            let retryAfter = response.header("Retry-After").flatMap(Double.init).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            return (error(.unavailable, "\(asked.method) \(what)\(said)", retryAfter: retryAfter), .wait(retryAfter: retryAfter))
        }
        if (400..<500).contains(status) {
            return (error(.rejected, "\(asked.method) \(what) was refused\(said)"), nil)
        }
        return (error(.unavailable, "\(asked.method) \(what) got an answer S3 does not give (HTTP \(status))"), nil)
    }
}
