/// The version of RWSecretKit (and of the rwsecret tool built with it), as its release is tagged.
public let version = "2.0.0"
