package dev.leasekeeper.core;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

class CoreArchitectureTests {

	@Test
	void coreImportsNothingFromBootVaultJdbcMicrometerOrHikari() {
		JavaClasses core = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.importPackages("dev.leasekeeper.core");
		noClasses().that()
			.resideInAPackage("dev.leasekeeper.core..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("org.springframework.boot..", "org.springframework.vault..", "java.sql..",
					"javax.sql..", "io.micrometer..", "com.zaxxer..")
			.check(core);
	}

}
