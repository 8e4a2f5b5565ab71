import factory
from django.contrib.auth import get_user_model

from clubs.models import Club, ClubRole
from members.models import Member


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ["username"]

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("pw-for-tests")


class MemberFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Member

    national_number = factory.Sequence(lambda n: str(500000 + n))
    name = factory.Faker("name", locale="en_GB")


class ClubFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Club

    name = factory.Sequence(lambda n: f"Club {n}")
    slug = factory.Sequence(lambda n: f"club-{n}")
    national_number = factory.Sequence(lambda n: str(9000 + n))


class ClubRoleFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ClubRole

    club = factory.SubFactory(ClubFactory)
    member = factory.SubFactory(MemberFactory)
    role = ClubRole.Role.MEMBER
