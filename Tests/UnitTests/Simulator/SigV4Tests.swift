import Foundation
import Simulator
import TestFixtures
import Testing

@Suite("SigV4")
struct SigV4Tests {
    /// AWS's published example of a presigned GET (S3 docs, "Authenticating Requests: Using
    /// Query Parameters"): same inputs must give the same signature.
    @Test("matches AWS's published presigned-URL example")
    func awsExample() {
        let signer = SigV4(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
        let date = Date(timeIntervalSince1970: 1_369_353_600)  // 2013-05-24T00:00:00Z
        let url = signer.presign(
            method: "GET", scheme: "https", host: "examplebucket.s3.amazonaws.com", path: "/test.txt",
            headers: ["host": "examplebucket.s3.amazonaws.com"], expires: 86400, at: date)
        #expect(url.hasSuffix("X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"))
        #expect(url.contains("X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"))
    }
}
