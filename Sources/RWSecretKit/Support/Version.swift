/// The version of rwsecret.
package let version = "2.0.0"
