import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** A method that must be atomic (lockstep matches `@Atomic` of any package; class retention is enough). */
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
@interface Atomic {}
