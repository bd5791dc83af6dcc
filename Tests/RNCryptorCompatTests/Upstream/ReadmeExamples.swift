//
//  ReadmeExamples.swift
//
//  The Swift examples of RNCryptor Swift's README.md (RNCryptor/RNCryptor at 09b65118:
//  "Basic Password Usage", "Incremental Usage", "Key-Based Encryption"), copyright © 2015
//  Rob Napier, MIT licence (LICENSE here), compiled and run against RNCryptorCompat.
//
//  The README's text predates Swift 3 in places; each example is written as Swift 5 spells it,
//  and every change from the README is marked `// README:` with the README's own text. The
//  `...` placeholders of the README are given values; the assertions after each example are ours.
//

import Foundation
import XCTest

import RNCryptorCompat

final class ReadmeExamplesTests: XCTestCase {
    private let message = Data("attack at dawn, then again at dusk: ".utf8) + RNCryptor.randomData(ofLength: 700)

    // ## Basic Password Usage
    func testBasicPasswordUsage() {
        var decrypted: Data?

        // Encryption
        let data: Data = message  // README: let data: NSData = ...
        let password = "Secret password"
        let ciphertext = RNCryptor.encrypt(data: data, withPassword: password)

        // Decryption
        do {
            let originalData = try RNCryptor.decrypt(data: ciphertext, withPassword: password)
            // ...
            decrypted = originalData
        } catch {
            print(error)
        }

        XCTAssertEqual(decrypted, message)
        XCTAssertThrowsError(try RNCryptor.decrypt(data: ciphertext, withPassword: "Wrong password")) {
            XCTAssertEqual($0 as? RNCryptor.Error, .hmacMismatch)
        }
    }

    // ## Incremental Usage: the README's encryption and decryption halves, each fed the data in pieces
    // ("Each time data comes in").
    func testIncrementalUsage() throws {
        let incoming = stride(from: 0, to: message.count, by: 97).map { message[$0..<min($0 + 97, message.count)] }

        //
        // Encryption
        //
        let ciphertext = encrypt(incoming)

        //
        // Decryption
        //
        let pieces = stride(from: 0, to: ciphertext.count, by: 61).map { ciphertext[$0..<min($0 + 61, ciphertext.count)] }
        XCTAssertEqual(try decrypt(pieces), message)
    }

    private func encrypt(_ incoming: [Data]) -> Data {
        let password = "Secret password"
        let encryptor = RNCryptor.Encryptor(password: password)
        let ciphertext = NSMutableData()

        for data in incoming {
            // ... Each time data comes in, update the encryptor and accumulate some ciphertext ...
            ciphertext.append(encryptor.update(withData: data))  // README: ciphertext.appendData(encryptor.updateWithData(data))
        }

        // ... When data is done, finish up ...
        ciphertext.append(encryptor.finalData())  // README: ciphertext.appendData(encryptor.finalData())
        return ciphertext as Data
    }

    private func decrypt(_ incoming: [Data]) throws -> Data {
        let password = "Secret password"
        let decryptor = RNCryptor.Decryptor(password: password)
        let plaintext = NSMutableData()

        for data in incoming {
            // ... Each time data comes in, update the decryptor and accumulate some plaintext ...
            try plaintext.append(decryptor.update(withData: data))  // README: try plaintext.appendData(decryptor.updateWithData(data))
        }

        // ... When data is done, finish up ...
        try plaintext.append(decryptor.finalData())  // README: try plaintext.appendData(decryptor.finalData())
        return plaintext as Data
    }

    // ## Key-Based Encryption
    func testKeyBasedEncryption() throws {
        let encryptKey = RNCryptor.randomData(ofLength: RNCryptor.FormatV3.keySize)  // (not in the README)
        let hmacKey = RNCryptor.randomData(ofLength: RNCryptor.FormatV3.keySize)  // (not in the README)

        let encryptor = RNCryptor.EncryptorV3(encryptionKey: encryptKey, hmacKey: hmacKey)
        let decryptor = RNCryptor.DecryptorV3(encryptionKey: encryptKey, hmacKey: hmacKey)

        XCTAssertEqual(try decryptor.decrypt(data: encryptor.encrypt(data: message)), message)
    }
}
