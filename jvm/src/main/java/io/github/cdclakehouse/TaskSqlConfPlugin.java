package io.github.cdclakehouse;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.spark.TaskContext;
import org.apache.spark.TaskFailedReason;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.apache.spark.api.plugin.SparkPlugin;
import org.apache.spark.sql.internal.ReadOnlySQLConf;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.internal.SQLConf$;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One SQL configuration object per Spark task, instead of one per look-up.
 *
 * <p>In a task, {@code SQLConf.get()} returns the configuration its thread holds, and when it
 * holds none (the usual case) it builds a new {@code ReadOnlySQLConf} over the task's
 * properties: a new map of providers, the environment and the system properties bound, at
 * every call. Spark 4.2 calls it for every value that an interpreted expression reads (the
 * lambdas of {@code transform}, {@code map_filter} and the other higher-order functions,
 * {@code variant_get} casts: {@code TypeOps.apply} asks it whether its types framework is on),
 * so the decoders spent a tenth or more of their time, and much garbage, building objects
 * that all read the same properties.
 *
 * <p>This plugin gives each task thread, when the task starts, the {@code ReadOnlySQLConf}
 * that Spark would have built (it reads the task's properties when asked, as every one of
 * them does) and takes it away when the task ends, so every look-up in the task gets the same
 * one. Spark keeps a thread's configuration in a private field of {@code SQLConf}'s companion
 * object ({@code withExistingConf} sets it around a block, which a plugin cannot wrap a task
 * in): the plugin reaches it by reflection. When it cannot (another Spark version), it logs
 * why, stays inactive and Spark behaves as without it ({@link #inactiveReason()}).
 */
public final class TaskSqlConfPlugin implements SparkPlugin {
  private static final Logger LOG = LoggerFactory.getLogger(TaskSqlConfPlugin.class);
  private static final AtomicLong GIVEN = new AtomicLong();
  private static final AtomicLong TAKEN = new AtomicLong();
  private static volatile String inactiveReason = "the plugin's executor side has not started";

  @Override
  public DriverPlugin driverPlugin() {
    return null;
  }

  @Override
  public ExecutorPlugin executorPlugin() {
    return new TaskConf();
  }

  /** The tasks given a configuration since the JVM started. */
  public static long tasksGiven() {
    return GIVEN.get();
  }

  /** The tasks whose configuration was taken away again when they ended. */
  public static long tasksTaken() {
    return TAKEN.get();
  }

  /** Why the plugin does nothing, or null when it works. */
  public static String inactiveReason() {
    return inactiveReason;
  }

  private static final class TaskConf implements ExecutorPlugin {
    private ThreadLocal<SQLConf> threadConf;

    @Override
    @SuppressWarnings("unchecked")
    public void init(PluginContext context, Map<String, String> extraConf) {
      try {
        // the field's private accessor, which creates the field on first use
        Method accessor = SQLConf$.class.getDeclaredMethod("existingConf");
        accessor.setAccessible(true);
        threadConf = (ThreadLocal<SQLConf>) accessor.invoke(SQLConf$.MODULE$);
        inactiveReason = null;
      } catch (ReflectiveOperationException | RuntimeException e) {
        threadConf = null;
        inactiveReason = "SQLConf has no thread configuration to set (" + e + ")";
        LOG.warn("TaskSqlConfPlugin is inactive: {}", inactiveReason);
      }
    }

    @Override
    public void onTaskStart() {
      if (threadConf != null) {
        // always a new one: a thread of the pool may come from a task that ended otherwise
        threadConf.set(new ReadOnlySQLConf(TaskContext.get()));
        GIVEN.incrementAndGet();
      }
    }

    @Override
    public void onTaskSucceeded() {
      taskEnded();
    }

    @Override
    public void onTaskFailed(TaskFailedReason reason) {
      taskEnded();
    }

    private void taskEnded() {
      if (threadConf != null) {
        threadConf.remove();
        TAKEN.incrementAndGet();
      }
    }
  }
}
