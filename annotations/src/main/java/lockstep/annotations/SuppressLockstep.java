package lockstep.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Tells lockstep that findings of the named rules on the annotated class
 * (and the classes nested in it), method or field are known and accepted.
 *
 * <p>lockstep recognises the annotation by its simple name in any package,
 * so a project may copy this file into its own package instead of depending
 * on this one. Class retention: it costs nothing at run time.
 *
 * <pre>{@code
 * @SuppressLockstep(value = "data-race", justification = "counter is approximate")
 * private int hits;
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
public @interface SuppressLockstep {
    /** Rule ids (`lockstep rules` lists them), or {@code "all"}. */
    String[] value();

    /** Why the findings are accepted; for people reading the code. */
    String justification() default "";
}
