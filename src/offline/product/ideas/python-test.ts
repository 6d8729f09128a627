/** A Python unittest file of one test case class, `Test` + `name`, with `body` as its methods. */
export function pyTest(imports: string, name: string, body: string): string {
  return `
import unittest
${imports}


class ${name}Test(unittest.TestCase):
${body}`;
}
