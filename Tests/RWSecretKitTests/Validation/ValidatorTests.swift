import RWSecretKit
import Testing

/// Every validator on its own, then the composite.
struct ValidatorTests {
    func accepts(_ validator: some ValidationRule, _ password: String) -> Bool {
        validator.validate(SecretBytes(utf8: password)) == nil
    }

    @Test func nonEmpty() {
        #expect(!accepts(NonEmptyValidator(), ""))
        #expect(accepts(NonEmptyValidator(), "a"))
        #expect(NonEmptyValidator().validate(SecretBytes([]))?.domain == NonEmptyValidator.domain)
    }

    @Test(arguments: ["tab\there", "line\nbreak", "cr\rhere", "nul\u{0}", "del\u{7F}", "c1\u{85}", "sep\u{2028}", "esc\u{1B}[0m"])
    func controlCharactersAreRejected(password: String) {
        #expect(!accepts(NoControlCharactersValidator(), password))
    }

    @Test(arguments: ["plain", "with space", "ünïcödé", "🔑 emoji", "quote\"backslash\\"])
    func printableTextIsAccepted(password: String) {
        #expect(accepts(NoControlCharactersValidator(), password))
    }

    @Test func atMost1024BytesOfUTF8() {
        #expect(accepts(MaximumLengthValidator(), String(repeating: "a", count: 1024)))
        #expect(!accepts(MaximumLengthValidator(), String(repeating: "a", count: 1025)))
        // 512 two-byte characters are 1024 bytes; one more is over.
        #expect(accepts(MaximumLengthValidator(), String(repeating: "é", count: 512)))
        #expect(!accepts(MaximumLengthValidator(), String(repeating: "é", count: 513)))
    }

    @Test func minimumLengthCountsCharacters() {
        let eight = MinimumLengthValidator(minimum: 8)
        #expect(!accepts(eight, "1234567"))
        #expect(accepts(eight, "12345678"))
        // "e" + combining acute is one Character: 7 of them are 7, not 14.
        #expect(!accepts(eight, String(repeating: "e\u{301}", count: 7)))
        #expect(accepts(eight, String(repeating: "e\u{301}", count: 8)))
        // Emoji with skin tone: one Character each.
        #expect(!accepts(MinimumLengthValidator(minimum: 2), "👍🏽"))
    }

    @Test func characterClasses() {
        let alpha = CharacterClassValidator(.alpha), numeric = CharacterClassValidator(.numeric)
        let alphanumeric = CharacterClassValidator(.alphanumeric)
        #expect(accepts(alpha, "abcXYZ"))
        #expect(!accepts(alpha, "abc1"))
        #expect(!accepts(alpha, "äbc"), "only ASCII letters count")
        #expect(accepts(numeric, "0123456789"))
        #expect(!accepts(numeric, "12a"))
        #expect(!accepts(numeric, "١٢٣"), "only ASCII digits count")
        #expect(accepts(alphanumeric, "abc123XYZ"))
        #expect(!accepts(alphanumeric, "abc 123"))
        #expect(!accepts(alphanumeric, "abc-123"))
    }

    @Test func notAlreadyStored() {
        let validator = NotAlreadyStoredValidator(stored: [SecretBytes(utf8: "one"), SecretBytes(utf8: "two")])
        #expect(!accepts(validator, "two"))
        #expect(accepts(validator, "three"))
        #expect(accepts(validator, "tw"))
        #expect(accepts(NotAlreadyStoredValidator(stored: []), "anything"))
    }

    @Test func compositeReportsEveryFailureInOrder() {
        let composite = PasswordValidator.passwordAdd(
            minimumLength: 10, requirement: .numeric, stored: [SecretBytes(utf8: "a\tb")])
        let failures = composite.validate(SecretBytes(utf8: "a\tb"))
        #expect(failures.map(\.domain) == [
            NoControlCharactersValidator.domain, MinimumLengthValidator.domain,
            CharacterClassValidator.domain, NotAlreadyStoredValidator.domain,
        ])
        #expect(composite.validate(SecretBytes(utf8: "1234567890")).isEmpty)
    }

    @Test func runDefaultIsNonEmptyNoControlAtMost1024() {
        #expect(PasswordValidator.runDefault.validate(SecretBytes(utf8: "")).map(\.domain) == [NonEmptyValidator.domain])
        #expect(PasswordValidator.runDefault.validate(SecretBytes(utf8: "short")).isEmpty)
        let both = PasswordValidator.runDefault.validate(SecretBytes(utf8: String(repeating: "\t", count: 1025)))
        #expect(both.map(\.domain) == [NoControlCharactersValidator.domain, MaximumLengthValidator.domain])
    }

    @Test func newVaultPassphraseNeedsEightCharacters() {
        #expect(PasswordValidator.newVaultPassphrase.validate(SecretBytes(utf8: "1234567")).map(\.domain) == [MinimumLengthValidator.domain])
        #expect(PasswordValidator.newVaultPassphrase.validate(SecretBytes(utf8: "12345678")).isEmpty)
    }

    @Test func failuresNeverContainThePassword() {
        let password = "Secret\tValue-xyz"
        let failures = PasswordValidator.passwordAdd(minimumLength: 100, requirement: .alpha, stored: [SecretBytes(utf8: password)])
            .validate(SecretBytes(utf8: password))
        #expect(failures.count == 4)
        for failure in failures {
            #expect(!failure.description.contains("Secret"))
            #expect(!failure.description.contains("xyz"))
            #expect(!failure.domain.isEmpty && failure.code != 0)
        }
    }
}
