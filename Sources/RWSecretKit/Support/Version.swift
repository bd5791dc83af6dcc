/// The version of rwsecret.
package let version = "0.1.0"
