import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The part of the `helm` command line Sieve's tests use, on Helm's own code (the Helm SDK inside
 * helm-java's native library, see pom.xml), for machines without a helm binary:
 *
 *   helm version
 *   helm lint CHART [--strict] [--quiet]
 *   helm template [NAME] CHART [--namespace NS] [-f VALUES]... [--set KEY=VALUE[,KEY={a,b}]]...
 *
 * Output and exit codes as helm's: rendered manifests on stdout, errors on stderr, exit 1 on failure.
 * Anything else is refused (exit 2) rather than half done.
 *
 * One difference is made up for: helm-java's template returns the release's manifest without its
 * hooks, which `helm template` prints after it. So the chart is rendered from a copy whose templates
 * have the annotation prefix `helm.sh/hook` renamed (Helm then keeps those objects in the manifest),
 * the name is put back in the output, and the hook objects are moved to the end, as helm prints them.
 */
public final class HelmCli {
  public static void main(String[] args) {
    try {
      System.exit(run(args));
    } catch (RuntimeException e) {
      System.err.println("Error: " + e.getMessage());
      System.exit(1);
    }
  }

  private static int usage(String message) {
    System.err.println("Error: " + message + " (this helm runs only: version; lint CHART [--strict] [--quiet]; "
        + "template [NAME] CHART [--namespace NS] [-f VALUES]... [--set KEY=VALUE[,KEY={a,b}]]...)");
    return 2;
  }

  private static int run(String[] args) {
    if (args.length == 0) return usage("no command");
    switch (args[0]) {
      case "version":
        System.out.println("version.BuildInfo{Version:\"" + Helm.version().call() + "\", Via:\"helm-java (Maven Central)\"}");
        return 0;
      case "lint":
        return lint(args);
      case "template":
        return template(args);
      default:
        return usage("unknown command '" + args[0] + "'");
    }
  }

  private static int lint(String[] args) {
    Path chart = null;
    boolean strict = false, quiet = false;
    for (int i = 1; i < args.length; i++) {
      switch (args[i]) {
        case "--strict": strict = true; break;
        case "--quiet": quiet = true; break;
        default:
          if (args[i].startsWith("-") || chart != null) return usage("lint: unsupported argument '" + args[i] + "'");
          chart = Paths.get(args[i]);
      }
    }
    if (chart == null) return usage("lint: no chart given");
    var command = new Helm(chart).lint();
    if (strict) command.strict();
    if (quiet) command.quiet();
    LintResult result = command.call();
    System.out.println("==> Linting " + chart);
    for (String message : result.getMessages()) System.out.println(message);
    System.out.println();
    System.out.println("1 chart(s) linted, " + (result.isFailed() ? 1 : 0) + " chart(s) failed");
    return result.isFailed() ? 1 : 0;
  }

  private static int template(String[] args) {
    List<String> positionals = new ArrayList<>();
    List<Path> valuesFiles = new ArrayList<>();
    List<String[]> sets = new ArrayList<>();
    String namespace = null;
    for (int i = 1; i < args.length; i++) {
      String arg = args[i];
      boolean hasNext = i + 1 < args.length;
      if ((arg.equals("-f") || arg.equals("--values")) && hasNext) valuesFiles.add(Paths.get(args[++i]));
      else if ((arg.equals("-n") || arg.equals("--namespace")) && hasNext) namespace = args[++i];
      else if (arg.equals("--set") && hasNext) {
        String given = args[++i];
        try {
          sets.addAll(parseSet(given));
        } catch (IllegalArgumentException e) {
          return usage("template: --set " + e.getMessage() + ", got '" + given + "'");
        }
      } else if (arg.startsWith("-")) return usage("template: unsupported argument '" + arg + "'");
      else positionals.add(arg);
    }
    if (positionals.isEmpty() || positionals.size() > 2) return usage("template: give [NAME] CHART");
    Path chart = Paths.get(positionals.get(positionals.size() - 1));
    Path copy = copyWithHooksKept(chart);
    try {
      TemplateCommand command = new Helm(copy).template();
      if (positionals.size() == 2) command.withName(positionals.get(0));
      if (namespace != null) command.withNamespace(namespace);
      for (Path file : valuesFiles) command.withValuesFile(file);
      for (String[] set : sets) command.set(set[0], set[1]);
      System.out.print(hooksLast(command.call().replace(HOOK_STANDIN, HOOK)));
      return 0;
    } finally {
      delete(copy.getParent());
    }
  }

  /**
   * Helm's --set syntax as far as charts' users write it: KEY=VALUE pairs separated by commas, a
   * value `{a,b}` being a list, `\\,` a comma inside a value. Each pair becomes one set call and a
   * list one call per item (KEY[0]=a, KEY[1]=b, Helm's index syntax), so no value handed to Helm
   * holds a comma, which helm-java's set does not escape. A comma left in a value is refused.
   */
  static List<String[]> parseSet(String arg) {
    List<String[]> sets = new ArrayList<>();
    for (String pair : split(arg, false)) {
      int eq = unescapedIndexOf(pair, '=');
      if (eq <= 0) throw new IllegalArgumentException("takes KEY=VALUE[,KEY=VALUE...]");
      String key = pair.substring(0, eq), value = pair.substring(eq + 1);
      if (value.startsWith("{") && value.endsWith("}")) {
        List<String> items = split(value.substring(1, value.length() - 1), true);
        for (int n = 0; n < items.size(); n++) sets.add(new String[] {key + "[" + n + "]", literal(items.get(n))});
      } else sets.add(new String[] {key, literal(value)});
    }
    return sets;
  }

  /** Splits on the commas that are not escaped and, unless inside a list already, not within braces. */
  private static List<String> split(String text, boolean inList) {
    List<String> parts = new ArrayList<>();
    StringBuilder part = new StringBuilder();
    int depth = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\\' && i + 1 < text.length()) {
        part.append(c).append(text.charAt(++i));
        continue;
      }
      if (c == '{' || c == '}') {
        if (inList) throw new IllegalArgumentException("takes lists of plain values only (no nested {})");
        depth += c == '{' ? 1 : -1;
      }
      if (c == ',' && depth == 0) {
        parts.add(part.toString());
        part.setLength(0);
      } else part.append(c);
    }
    parts.add(part.toString());
    return parts;
  }

  private static int unescapedIndexOf(String text, char wanted) {
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) == '\\') i++;
      else if (text.charAt(i) == wanted) return i;
    }
    return -1;
  }

  /** A value with its escapes taken out; one that would still hold a comma is refused. */
  private static String literal(String value) {
    String plain = value.replaceAll("\\\\(.)", "$1");
    if (plain.indexOf(',') >= 0) throw new IllegalArgumentException("cannot pass a comma inside a value to helm-java (use -f VALUES)");
    return plain;
  }

  private static final String HOOK = "helm.sh/hook";
  private static final String HOOK_STANDIN = "helm-java.invalid/kept-hook";

  /** A copy of the chart (same folder name) whose templates name hooks so that Helm keeps them in the manifest. */
  private static Path copyWithHooksKept(Path chart) {
    try {
      Path copy = Files.createTempDirectory("helm-template-").resolve(chart.toAbsolutePath().normalize().getFileName());
      try (Stream<Path> files = Files.walk(chart)) {
        for (Path from : (Iterable<Path>) files::iterator) {
          Path to = copy.resolve(chart.relativize(from).toString());
          if (Files.isDirectory(from)) Files.createDirectories(to);
          else if (chart.relativize(from).startsWith("templates")) {
            Files.writeString(to, Files.readString(from, StandardCharsets.UTF_8).replace(HOOK, HOOK_STANDIN), StandardCharsets.UTF_8);
          } else Files.copy(from, to);
        }
      }
      return copy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The documents of a rendered manifest, those that are hooks moved after the others. */
  private static String hooksLast(String manifest) {
    StringBuilder objects = new StringBuilder(), hooks = new StringBuilder();
    for (String doc : manifest.split("(?m)^---\\R")) {
      if (doc.isBlank()) continue;
      (doc.contains(HOOK + ":") ? hooks : objects).append("---\n").append(doc.endsWith("\n") ? doc : doc + "\n");
    }
    return objects.append(hooks).toString();
  }

  private static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A temporary folder left behind is not worth failing the render.
    }
  }
}
